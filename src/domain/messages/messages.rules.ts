/** The longest SMS body: ten segments, which carriers concatenate (and what Twilio accepts). */
export const MAX_SMS_LENGTH = 1600;
/** The longest delivery error kept: Twilio's code and message, cut. */
export const MAX_DELIVERY_ERROR_LENGTH = 500;
/** The 409 `sms_opt_out` of a text to a suppressed number (docs/decisions/sms-opt-out.md). */
export const SMS_OPTED_OUT_MESSAGE = "Contact has opted out of SMS (texted STOP); they must text START to your number before you can send them an SMS";
