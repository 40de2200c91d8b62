-- Full-text index behind GET /contacts?q= (issue 13), so a search reads the index instead of
-- every contact of the agency. drizzle-kit cannot express virtual tables, so this file is
-- written by hand (its snapshot equals 0009's). Kept exact by triggers, like 0004's counts.
--
-- rowid = the contact's rowid, so the list joins back by rowid. Columns:
--   agency      the agency id without dashes: one token, so a MATCH can require it
--   name        first_name || ' ' || last_name
--   email       as stored (lower-cased)
--   phone       every suffix of the E.164 digits ("14155550123 4155550123 ... 23 3"), so a prefix
--               query on them matches digits anywhere in the number; E.164 has at most 15 digits
--   contact_id  the contact's id, not indexed
-- Soft-deleted contacts stay indexed: GET /contacts?deleted=true&q= searches them.
-- prefix = '1 2 3 4': a prefix query longer than every prefix index merges the doclists of all
-- words with that prefix, in every agency, before the agency's token narrows them; one prefix
-- index per length up to 4 keeps the short queries of type-ahead to one doclist, read only
-- where it meets the agency's. (300k contacts in 211 agencies, one of 500: "j" 7 ms -> 1 ms
-- with the 1-character index, "john" 5 ms -> 0.8 ms with the 4-character one; each length
-- adds about 65 bytes per contact.)
-- https://sqlite.org/fts5.html (unicode61 remove_diacritics 2, prefix indexes, column filters)
--
-- The triggers build the row from NEW with VALUES (so the suffix expression is written out three
-- times): reading it back from contacts, or through a subquery, cost every contact write a row read.
CREATE VIRTUAL TABLE contacts_fts USING fts5(
  agency, name, email, phone, contact_id UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3 4'
);
--> statement-breakpoint
INSERT INTO contacts_fts (rowid, agency, name, email, phone, contact_id)
  SELECT rowid, replace(agency_id, '-', ''), first_name || ' ' || last_name, email,
    substr(ltrim(phone, '+'), 1) || ' ' || substr(ltrim(phone, '+'), 2) || ' ' || substr(ltrim(phone, '+'), 3) || ' ' || substr(ltrim(phone, '+'), 4) || ' ' ||
    substr(ltrim(phone, '+'), 5) || ' ' || substr(ltrim(phone, '+'), 6) || ' ' || substr(ltrim(phone, '+'), 7) || ' ' || substr(ltrim(phone, '+'), 8) || ' ' ||
    substr(ltrim(phone, '+'), 9) || ' ' || substr(ltrim(phone, '+'), 10) || ' ' || substr(ltrim(phone, '+'), 11) || ' ' || substr(ltrim(phone, '+'), 12) || ' ' ||
    substr(ltrim(phone, '+'), 13) || ' ' || substr(ltrim(phone, '+'), 14) || ' ' || substr(ltrim(phone, '+'), 15),
    id
  FROM contacts;
--> statement-breakpoint
-- The DELETE first: INSERT OR REPLACE removes the row it replaces without firing delete triggers
-- (unless recursive_triggers is on), which would leave an index row at a rowid SQLite may hand out
-- again. https://sqlite.org/lang_conflict.html
CREATE TRIGGER contacts_fts_insert AFTER INSERT ON contacts BEGIN
  DELETE FROM contacts_fts WHERE rowid = NEW.rowid;
  INSERT INTO contacts_fts (rowid, agency, name, email, phone, contact_id)
    VALUES (NEW.rowid, replace(NEW.agency_id, '-', ''), NEW.first_name || ' ' || NEW.last_name, NEW.email,
      substr(ltrim(NEW.phone, '+'), 1) || ' ' || substr(ltrim(NEW.phone, '+'), 2) || ' ' || substr(ltrim(NEW.phone, '+'), 3) || ' ' || substr(ltrim(NEW.phone, '+'), 4) || ' ' ||
      substr(ltrim(NEW.phone, '+'), 5) || ' ' || substr(ltrim(NEW.phone, '+'), 6) || ' ' || substr(ltrim(NEW.phone, '+'), 7) || ' ' || substr(ltrim(NEW.phone, '+'), 8) || ' ' ||
      substr(ltrim(NEW.phone, '+'), 9) || ' ' || substr(ltrim(NEW.phone, '+'), 10) || ' ' || substr(ltrim(NEW.phone, '+'), 11) || ' ' || substr(ltrim(NEW.phone, '+'), 12) || ' ' ||
      substr(ltrim(NEW.phone, '+'), 13) || ' ' || substr(ltrim(NEW.phone, '+'), 14) || ' ' || substr(ltrim(NEW.phone, '+'), 15),
      NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER contacts_fts_update AFTER UPDATE OF id, agency_id, first_name, last_name, email, phone ON contacts
  WHEN OLD.id IS NOT NEW.id OR OLD.agency_id IS NOT NEW.agency_id OR OLD.first_name IS NOT NEW.first_name
    OR OLD.last_name IS NOT NEW.last_name OR OLD.email IS NOT NEW.email OR OLD.phone IS NOT NEW.phone BEGIN
  DELETE FROM contacts_fts WHERE rowid = OLD.rowid;
  INSERT INTO contacts_fts (rowid, agency, name, email, phone, contact_id)
    VALUES (NEW.rowid, replace(NEW.agency_id, '-', ''), NEW.first_name || ' ' || NEW.last_name, NEW.email,
      substr(ltrim(NEW.phone, '+'), 1) || ' ' || substr(ltrim(NEW.phone, '+'), 2) || ' ' || substr(ltrim(NEW.phone, '+'), 3) || ' ' || substr(ltrim(NEW.phone, '+'), 4) || ' ' ||
      substr(ltrim(NEW.phone, '+'), 5) || ' ' || substr(ltrim(NEW.phone, '+'), 6) || ' ' || substr(ltrim(NEW.phone, '+'), 7) || ' ' || substr(ltrim(NEW.phone, '+'), 8) || ' ' ||
      substr(ltrim(NEW.phone, '+'), 9) || ' ' || substr(ltrim(NEW.phone, '+'), 10) || ' ' || substr(ltrim(NEW.phone, '+'), 11) || ' ' || substr(ltrim(NEW.phone, '+'), 12) || ' ' ||
      substr(ltrim(NEW.phone, '+'), 13) || ' ' || substr(ltrim(NEW.phone, '+'), 14) || ' ' || substr(ltrim(NEW.phone, '+'), 15),
      NEW.id);
END;
--> statement-breakpoint
CREATE TRIGGER contacts_fts_delete AFTER DELETE ON contacts BEGIN
  DELETE FROM contacts_fts WHERE rowid = OLD.rowid;
END;
