import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppBindings } from "@/lib/context";
import { ApiError, badRequest, messages } from "@/lib/errors";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "@/lib/json-depth";

/** 1 MiB: docs/decisions/security-posture.md. */
export const MAX_BODY_BYTES = 1_048_576;

/**
 * Hono's body limit refuses on `Content-Length` without reading a byte, and counts a body
 * without a length (chunked) as it reads, stopping at the first chunk past the limit; either
 * way before any handler or validator sees the body, so nothing is parsed or written.
 */
export const limitBodySize = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError("payload_too_large", messages.payloadTooLarge);
  },
});

// The media types the validator parses as JSON (hono/validator's own test), so every body
// that reaches JSON.parse was scanned first.
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * Refuses a JSON body nested deeper than MAX_JSON_DEPTH with one linear scan of its bytes,
 * before the validator parses it. The bytes are read through `c.req.arrayBuffer()`, which
 * Hono caches: the validator parses that same buffer and Idempotency-Key hashes it, so the
 * body is read from the network once.
 */
export const limitJsonDepth: MiddlewareHandler<AppBindings> = async (c, next) => {
  const mediaType = c.req.header("Content-Type")?.split(";")[0]?.trim() ?? "";
  if (c.req.raw.body && JSON_MEDIA_TYPE.test(mediaType)) {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (nestsDeeperThan(bytes, MAX_JSON_DEPTH)) throw badRequest(messages.jsonTooDeep);
  }
  return next();
};
