/**
 * The deepest nesting a request body may have, counting the outermost object or array as 1.
 * Our deepest legitimate body is 5 levels (a path's `steps[].fields[]`: object, array, step,
 * array, field; `custom_fields` with a multiselect is 3), so 32 leaves ample room for any
 * schema we add while stopping bodies built to nest thousands deep, which cost recursion in
 * validation and in every later JSON.stringify of a free-form value such as `custom_fields`.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON text nests deeper than `limit`, by one linear pass over its UTF-8 bytes,
 * without parsing: brackets inside strings do not count. Bytes below 0x80 never occur inside
 * a multi-byte UTF-8 sequence, so scanning bytes is exact. Malformed JSON is not judged here;
 * JSON.parse refuses it afterwards.
 */
export function nestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === BACKSLASH) escaped = true;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}
