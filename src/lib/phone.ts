import { z } from "@hono/zod-openapi";
import { parsePhoneNumberFromString } from "libphonenumber-js/min";

export const PHONE_FORMAT_MESSAGE = "must be a 10-digit US number or E.164 (e.g. +14155550123)";

/**
 * Accepts a 10-digit US number (punctuation allowed: `(415) 555-0123`) or E.164
 * (`+447911123456`) and returns E.164, or null when it is neither.
 */
export function toE164(input: string): string | null {
  const trimmed = input.trim();
  if (trimmed.length === 0 || trimmed.length > 32) return null;
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
    .max(32)
    .transform((value, ctx) => {
      const e164 = toE164(value);
      if (!e164) {
        ctx.addIssue({ code: "custom", message: `${name} ${PHONE_FORMAT_MESSAGE}` });
        return z.NEVER;
      }
      return e164;
    })
    .openapi({ type: "string", description: "10-digit US number or E.164; returned in E.164.", example: "+14155550123" });
