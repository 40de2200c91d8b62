import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The FTS5 index of contacts (migration 0010_contacts_fts.sql), kept exact by triggers on
 * contacts. Declared here rather than in src/db/schema so that drizzle-kit, which cannot create
 * virtual tables, never tries to. Its rowid is the contact's rowid.
 */
export const contactsFts = sqliteTable("contacts_fts", {
  rowid: integer("rowid").notNull(),
  agency: text("agency"),
  name: text("name"),
  email: text("email"),
  phone: text("phone"),
  contactId: text("contact_id"),
});

/**
 * The words of q as the index's tokenizer (unicode61) sees them: runs of letters and digits,
 * with the combining marks inside them (unicode61 folds accents away itself). Everything else
 * separates words, so no quote, `*`, `:`, parenthesis or `-` ever reaches the MATCH expression.
 */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/** As before the index: a q made only of digits, spaces and `( ) . + -` is also a phone fragment. */
const PHONE_LIKE = /^[\d\s().+-]+$/;

/**
 * The FTS5 MATCH expression for q in one agency, or undefined when q has no letter or digit
 * (it can match nothing). Every word is a quoted prefix term restricted to name and email,
 * all required; a phone-like q may instead match the phone's digit suffixes, which makes it a
 * substring match on the digits. AND/OR/NOT/NEAR typed by the caller stay plain quoted words.
 *
 * The agency's token is part of the expression (not only a filter on the join): FTS5 then
 * intersects each word's doclist with the agency's, skipping through both, so a common word
 * costs about what its matches in this agency cost rather than its matches in every agency
 * (a 500-contact agency searching a word 9,000 other contacts share: 5 ms instead of 38 ms).
 * A word longer than the longest prefix index (4) still merges that prefix's doclists across
 * agencies first. https://sqlite.org/fts5.html#full_text_query_syntax
 */
export function contactSearchMatch(agencyId: string, q: string): string | undefined {
  const words = (q.toLowerCase().match(WORD) ?? []).filter((w) => LETTER_OR_DIGIT.test(w));
  if (words.length === 0) return undefined;
  const byWords = `{name email} : (${words.map((w) => `"${w}"*`).join(" AND ")})`;
  const digits = q.replace(/\D/g, "");
  const byPhone = PHONE_LIKE.test(q) && digits.length > 0 ? ` OR phone : "${digits}"*` : "";
  return `agency : "${agencyId.replaceAll("-", "")}" AND (${byWords}${byPhone})`;
}
