import { z } from "@hono/zod-openapi";
import { parsePhoneNumberFromString } from "libphonenumber-js/min";

export const PHONE_FORMAT_MESSAGE = "must be a 10-digit US number or E.164 (e.g. +14155550123)";

/** Longest phone input accepted: an E.164 or formatted US number with room for spaces and punctuation. */
export const MAX_PHONE_INPUT_LENGTH = 32;

/** E.164: `+`, a country code and at most 15 digits in all. */
const E164 = /^\+[1-9]\d{1,14}$/;
export const E164_MAX_LENGTH = 16;

/** A phone number the API wrote: always E.164 (`toE164`). */
export const e164String = () => z.string().max(E164_MAX_LENGTH).regex(E164);

/**
 * Accepts a 10-digit US number (punctuation allowed: `(415) 555-0123`) or E.164
 * (`+447911123456`) and returns E.164, or null when it is neither.
 */
export function toE164(input: string): string | null {
  const trimmed = input.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_PHONE_INPUT_LENGTH) return null;
  if (!trimmed.startsWith("+")) {
    const digits = trimmed.replace(/[\s().-]/g, "");
    if (!/^\d{10}$/.test(digits)) return null;
  }
  const parsed = parsePhoneNumberFromString(trimmed, "US");
  if (!parsed || !parsed.isValid()) return null;
  return parsed.number;
}

/** A phone field for request bodies: validated and normalised to E.164. */
export const phoneField = (name: string) =>
  z
    .string()
    .max(MAX_PHONE_INPUT_LENGTH)
    .transform((value, ctx) => {
      const e164 = toE164(value);
      if (!e164) {
        ctx.addIssue({ code: "custom", message: `${name} ${PHONE_FORMAT_MESSAGE}` });
        return z.NEVER;
      }
      return e164;
    })
    // The transform hides the input's bound from the document: state it here.
    .openapi({
      type: "string",
      maxLength: MAX_PHONE_INPUT_LENGTH,
      description: "10-digit US number or E.164; returned in E.164.",
      example: "+14155550123",
    });
