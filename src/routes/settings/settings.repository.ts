import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agencies, agencySettings, voiceAgents } from "@/db/schema";
import { nowIso } from "@/lib/time";
import { StoredSettings, type UpdateSettingsInput } from "./settings.schemas";

type AgencyRow = typeof agencies.$inferSelect;
type SettingsRow = typeof agencySettings.$inferSelect;

/**
 * The curated settings: the agency's name and timezone from `agencies`, the rest from
 * agency_settings with defaults for whatever the agency never set. Nothing here reads
 * agency_secrets; secrets are not part of this record.
 */
export const toPublicSettings = (agency: AgencyRow, row: SettingsRow | undefined) => {
  const stored = StoredSettings.parse(row?.settings ?? {});
  return {
    agency_name: agency.name,
    calling_timezone: agency.timezone,
    calling_hours: stored.calling_hours,
    booking: stored.booking,
    voice: stored.voice,
    updated_at: row && row.updatedAt > agency.updatedAt ? row.updatedAt : agency.updatedAt,
  };
};

export async function getSettings(db: Db, agencyId: string) {
  const [agencyRows, settingsRows] = await db.batch([
    db.select().from(agencies).where(eq(agencies.id, agencyId)),
    db.select().from(agencySettings).where(eq(agencySettings.agencyId, agencyId)),
  ]);
  const agency = agencyRows[0];
  return agency ? toPublicSettings(agency, settingsRows[0]) : undefined;
}

export const isAgencyVoiceAgent = async (db: Db, agencyId: string, agentId: string) =>
  Boolean(
    await db
      .select({ id: voiceAgents.id })
      .from(voiceAgents)
      .where(and(eq(voiceAgents.id, agentId.toLowerCase()), eq(voiceAgents.agencyId, agencyId)))
      .get(),
  );

const withoutNulls = (value: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, typeof v === "object" && !Array.isArray(v) ? withoutNulls(v as Record<string, unknown>) : v]),
  );

/**
 * Applies a validated patch in one batch (one transaction). The JSON part is merged in SQL
 * with json_patch (RFC 7396: objects merge key by key, `null` removes a key so its default
 * shows again), so two concurrent PATCHes of different settings both stick.
 */
export async function updateSettings(db: Db, agencyId: string, patch: UpdateSettingsInput) {
  const now = nowIso();
  const { agency_name: name, calling_timezone: timezone, ...json } = patch;
  const jsonPatch = Object.fromEntries(Object.entries(json).filter(([, v]) => v !== undefined));
  const statements = [];
  if (name !== undefined || timezone !== undefined) {
    statements.push(db.update(agencies).set({ name, timezone, updatedAt: now }).where(eq(agencies.id, agencyId)));
  }
  if (Object.keys(jsonPatch).length > 0) {
    statements.push(
      db
        .insert(agencySettings)
        .values({ agencyId, settings: withoutNulls(jsonPatch), updatedAt: now })
        .onConflictDoUpdate({
          target: agencySettings.agencyId,
          set: { settings: sql`json_patch(${agencySettings.settings}, ${JSON.stringify(jsonPatch)})`, updatedAt: now },
        }),
    );
  }
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}
