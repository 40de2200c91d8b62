import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const testEnv = env as unknown as { UPGRADE_DB: D1Database; TEST_MIGRATIONS: D1Migration[] };

describe("migration 0017: opt-out moves from contacts to their numbers", () => {
  it("makes every number an opted-out contact holds a suppression of its agency, and every contact show its number's state", async () => {
    const db = testEnv.UPGRADE_DB;
    const all = testEnv.TEST_MIGRATIONS;
    await applyD1Migrations(db, all.slice(0, all.findIndex((m) => m.name.startsWith("0017"))));

    const [agency, otherAgency] = [crypto.randomUUID(), crypto.randomUUID()];
    const [stopped, deletedTwin, plain, phoneless, elsewhere, kept] = [0, 1, 2, 3, 4, 5].map(() => crypto.randomUUID()) as [string, string, string, string, string, string];
    const stopMessage = crypto.randomUUID();
    const [p1, p2, p3] = ["+14155550101", "+14155550102", "+14155550103"];
    const contact = (id: string, agencyId: string, phone: string | null, optedOut: boolean, deletedAt: string | null = null) =>
      db
        .prepare(
          "INSERT INTO contacts (id, agency_id, first_name, last_name, phone, tags, custom_fields, sms_opt_out, created_at, updated_at, deleted_at) VALUES (?, ?, 'A', 'B', ?, '[]', '{}', ?, '2026-05-01T00:00:00.000Z', '2026-05-02T00:00:00.000Z', ?)",
        )
        .bind(id, agencyId, phone, optedOut ? 1 : 0, deletedAt);
    await db.batch([
      ...[agency, otherAgency].map((id) =>
        db.prepare("INSERT INTO agencies (id, name, timezone, created_at, updated_at) VALUES (?, 'Agency', 'UTC', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')").bind(id),
      ),
      // Texted STOP (kept as its message): opted out. Its number's deleted contact was not.
      contact(stopped, agency, p1, true),
      contact(deletedTwin, agency, p1, false, "2026-04-01T00:00:00.000Z"),
      contact(plain, agency, p2, false),
      // Opted out, then its phone removed: no number to suppress.
      contact(phoneless, agency, null, true),
      // The same number in another agency: not its opt-out.
      contact(elsewhere, otherAgency, p1, false),
      // Opted out with no keyword message left (pruned, or older than messages): dated by its last update.
      contact(kept, otherAgency, p3, true),
      db
        .prepare("INSERT INTO messages (id, agency_id, contact_id, channel, direction, body, provider_message_id, created_at) VALUES (?, ?, ?, 'sms', 'inbound', ' stop ', 'SM1', '2026-05-01T12:00:00.000Z')")
        .bind(stopMessage, agency, stopped),
    ]);

    await applyD1Migrations(db, all);

    const suppressions = await db.prepare("SELECT agency_id, number, since, source, message_id FROM sms_suppressions ORDER BY number").all();
    expect(suppressions.results).toEqual([
      { agency_id: agency, number: p1, since: "2026-05-01T12:00:00.000Z", source: "keyword", message_id: stopMessage },
      { agency_id: otherAgency, number: p3, since: "2026-05-02T00:00:00.000Z", source: "keyword", message_id: null },
    ]);
    const flags = Object.fromEntries((await db.prepare("SELECT id, sms_opt_out FROM contacts").all<{ id: string; sms_opt_out: number }>()).results.map((r) => [r.id, r.sms_opt_out]));
    expect(flags).toEqual({ [stopped]: 1, [deletedTwin]: 1, [plain]: 0, [phoneless]: 0, [elsewhere]: 0, [kept]: 1 });
    // The move fence covers the new table.
    const triggers = await db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'sms_suppressions' ORDER BY name").all<{ name: string }>();
    expect(triggers.results.map((t) => t.name)).toEqual(["sms_suppressions_freeze_delete", "sms_suppressions_freeze_insert", "sms_suppressions_freeze_update"]);
  });
});
