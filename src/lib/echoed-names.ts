/**
 * Names a refusal echoes back (unknown query parameters): enough to spot a typo, never an
 * answer as large as the request. Only the first MAX_NAMED_UNKNOWN are named, each cut to
 * MAX_SHOWN_NAME_BYTES of JSON; an error names each one three times (message, field, detail),
 * so a refusal stays under 4 KB whatever was sent (docs/decisions/response-conventions.md).
 */
const MAX_NAMED_UNKNOWN = 20;
/** Bytes of a name as the answer's JSON carries it: a character JSON escapes counts its escape (`\u0001` is 6). */
const MAX_SHOWN_NAME_BYTES = 32;

const utf8 = new TextEncoder();
const jsonBytes = (text: string) => utf8.encode(JSON.stringify(text)).length - 2;

/** A name as a refusal echoes it, cut with an ellipsis to MAX_SHOWN_NAME_BYTES of JSON. */
function shownName(name: string): string {
  let shown = "";
  let bytes = 0;
  for (const char of name) {
    bytes += jsonBytes(char);
    if (bytes > MAX_SHOWN_NAME_BYTES) return `${shown}…`;
    shown += char;
  }
  return shown;
}

/** The names a refusal shows, and how many more it leaves unnamed. */
export function namedUnknowns(names: readonly string[]): { named: string[]; more: number } {
  const named = names.slice(0, MAX_NAMED_UNKNOWN).map(shownName);
  return { named, more: names.length - named.length };
}

/** `a, b and 3 more`. */
export const listNames = ({ named, more }: { named: string[]; more: number }) =>
  `${named.join(", ")}${more > 0 ? ` and ${more.toLocaleString("en-US")} more` : ""}`;
