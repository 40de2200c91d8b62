import { z } from "@hono/zod-openapi";

/**
 * Building blocks for documented values with stated bounds. The OWASP API Security ruleset
 * (API4, unrestricted resource consumption) asks every string for a maxLength, every integer
 * for a format and bounds and every array for a maxItems; the bounds here are the real ones,
 * so a partner can size columns and buffers from the document. Request fields enforce them
 * through zod; response fields state what the API writes.
 */

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/** The largest whole number JSON numbers in JavaScript and SQLite integers both carry exactly. */
export const MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/** An integer's OpenAPI format: int32 when its bounds fit, int64 otherwise. */
export const integerFormat = (min: number, max: number) => (min >= INT32_MIN && max <= INT32_MAX ? "int32" : "int64");

/** A whole number from `min` to `max`, documented with its format. */
export const boundedInt = (min: number, max: number) => z.int().min(min).max(max).openapi({ format: integerFormat(min, max) });

/** A count of records, events or money in cents: never negative. */
export const countInt = () => boundedInt(0, MAX_SAFE_INTEGER);

/** A UUID the API wrote. */
export const uuidString = () => z.string().length(36).openapi({ format: "uuid" });

/**
 * An instant the API wrote: `Date.prototype.toISOString()`, always UTC with milliseconds
 * (`2026-11-20T14:05:00.000Z`, 24 characters for the years 0000 to 9999 the API accepts).
 */
export const instantString = () => z.string().max(24).openapi({ format: "date-time" });

/** A calendar date, `YYYY-MM-DD`. */
export const dateString = () => z.string().length(10).openapi({ format: "date" });

/** An IANA timezone name; the longest in the tz database is 32 characters. */
export const MAX_TIMEZONE_LENGTH = 64;
