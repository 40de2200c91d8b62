-- Keep record_counts exact: triggers run inside the statement that changes the row, so a
-- count can never drift from its table, whatever path (API, operator, batch) wrote it.
INSERT INTO record_counts (agency_id, kind, count)
  SELECT agency_id, CASE WHEN deleted_at IS NULL THEN 'contacts.live' ELSE 'contacts.deleted' END, count(*)
  FROM contacts GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO record_counts (agency_id, kind, count)
  SELECT agency_id, 'voice_calls', count(*) FROM voice_calls GROUP BY 1;
--> statement-breakpoint
CREATE TRIGGER contacts_count_insert AFTER INSERT ON contacts BEGIN
  INSERT OR IGNORE INTO record_counts (agency_id, kind, count)
    VALUES (NEW.agency_id, CASE WHEN NEW.deleted_at IS NULL THEN 'contacts.live' ELSE 'contacts.deleted' END, 0);
  UPDATE record_counts SET count = count + 1
    WHERE agency_id = NEW.agency_id AND kind = CASE WHEN NEW.deleted_at IS NULL THEN 'contacts.live' ELSE 'contacts.deleted' END;
END;
--> statement-breakpoint
CREATE TRIGGER contacts_count_move AFTER UPDATE OF deleted_at ON contacts
  WHEN (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL) BEGIN
  UPDATE record_counts SET count = count - 1
    WHERE agency_id = OLD.agency_id AND kind = CASE WHEN OLD.deleted_at IS NULL THEN 'contacts.live' ELSE 'contacts.deleted' END;
  INSERT OR IGNORE INTO record_counts (agency_id, kind, count)
    VALUES (NEW.agency_id, CASE WHEN NEW.deleted_at IS NULL THEN 'contacts.live' ELSE 'contacts.deleted' END, 0);
  UPDATE record_counts SET count = count + 1
    WHERE agency_id = NEW.agency_id AND kind = CASE WHEN NEW.deleted_at IS NULL THEN 'contacts.live' ELSE 'contacts.deleted' END;
END;
--> statement-breakpoint
CREATE TRIGGER contacts_count_delete AFTER DELETE ON contacts BEGIN
  UPDATE record_counts SET count = count - 1
    WHERE agency_id = OLD.agency_id AND kind = CASE WHEN OLD.deleted_at IS NULL THEN 'contacts.live' ELSE 'contacts.deleted' END;
END;
--> statement-breakpoint
CREATE TRIGGER voice_calls_count_insert AFTER INSERT ON voice_calls BEGIN
  INSERT OR IGNORE INTO record_counts (agency_id, kind, count) VALUES (NEW.agency_id, 'voice_calls', 0);
  UPDATE record_counts SET count = count + 1 WHERE agency_id = NEW.agency_id AND kind = 'voice_calls';
END;
--> statement-breakpoint
CREATE TRIGGER voice_calls_count_delete AFTER DELETE ON voice_calls BEGIN
  UPDATE record_counts SET count = count - 1 WHERE agency_id = OLD.agency_id AND kind = 'voice_calls';
END;
