/** The longest SMS body: ten segments, which carriers concatenate (and what Twilio accepts). */
export const MAX_SMS_LENGTH = 1600;
/** The longest delivery error kept: Twilio's code and message, cut. */
export const MAX_DELIVERY_ERROR_LENGTH = 500;
