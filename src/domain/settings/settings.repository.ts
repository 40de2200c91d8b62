import { and, eq, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "@/db/client";
import { agencies, agencySettings, voiceAgents } from "@/db/schema";
import { nowIso } from "@/lib/time";
import type { CallingWindow } from "@/lib/calling-window";
import { StoredSettings, type SettingsPatch } from "./settings.model";
import { commit } from "@/db/outbox";

/**
 * The agency with its stored settings, as one query for a `commit` batch (one row; none for an
 * unknown agency). Every route and job that obeys a setting reads it through this, and
 * `effectiveSettings` turns the row into what is in force. `agencyId` may be a subquery (the
 * agency of a call, say), so the read need not wait for another.
 */
export const agencySettingsQuery = (db: Db, agencyId: string | SQL) =>
  db
    .select({
      name: agencies.name,
      timezone: agencies.timezone,
      // Aliased: both columns are `updated_at`, and D1 returns a batch's rows keyed by column name.
      agencyUpdatedAt: sql<string>`${agencies.updatedAt}`.as("agency_updated_at"),
      settings: agencySettings.settings,
      settingsUpdatedAt: sql<string | null>`${agencySettings.updatedAt}`.as("settings_updated_at"),
    })
    .from(agencies)
    .leftJoin(agencySettings, eq(agencySettings.agencyId, agencies.id))
    .where(eq(agencies.id, agencyId));

export type AgencySettingsRow = Awaited<ReturnType<typeof agencySettingsQuery>>[number];

/** The settings in force: what the agency stored, defaults for the rest, in its calling timezone ("UTC" without an agency). */
export function effectiveSettings(row: Pick<AgencySettingsRow, "timezone" | "settings"> | undefined) {
  return { timezone: row?.timezone ?? "UTC", ...StoredSettings.parse(row?.settings ?? {}) };
}

export type AgencySettings = ReturnType<typeof effectiveSettings>;

/** The agency's calling window, from its settings in force. */
export const callingWindowOf = (settings: AgencySettings): CallingWindow => ({ timezone: settings.timezone, ...settings.calling_hours });

/**
 * The curated settings: the agency's name and timezone from `agencies`, the rest from
 * agency_settings with defaults for whatever the agency never set. Nothing here reads
 * agency_secrets; secrets are not part of this record.
 */
export const toPublicSettings = (row: AgencySettingsRow) => {
  const { timezone, ...stored } = effectiveSettings(row);
  return {
    agency_name: row.name,
    calling_timezone: timezone,
    ...stored,
    updated_at: row.settingsUpdatedAt && row.settingsUpdatedAt > row.agencyUpdatedAt ? row.settingsUpdatedAt : row.agencyUpdatedAt,
  };
};

export async function getSettings(db: Db, agencyId: string) {
  const row = await agencySettingsQuery(db, agencyId).get();
  return row ? toPublicSettings(row) : undefined;
}

/** The status of a Voice AI agent of the agency; undefined when it has no such agent. */
export const voiceAgentStatus = async (db: Db, agencyId: string, agentId: string) =>
  (
    await db
      .select({ status: voiceAgents.status })
      .from(voiceAgents)
      .where(and(eq(voiceAgents.id, agentId.toLowerCase()), eq(voiceAgents.agencyId, agencyId)))
      .get()
  )?.status;

const withoutNulls = (value: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, typeof v === "object" && !Array.isArray(v) ? withoutNulls(v as Record<string, unknown>) : v]),
  );

/**
 * Applies a validated patch in one batch (one transaction) and returns the agency's settings
 * row after it (undefined without the agency). The JSON part is merged in SQL
 * with json_patch (RFC 7396: objects merge key by key, `null` removes a key so its default
 * shows again), so two concurrent PATCHes of different settings both stick.
 */
export async function updateSettings(db: Db, agencyId: string, patch: SettingsPatch) {
  const now = nowIso();
  const { agency_name: name, calling_timezone: timezone, ...json } = patch;
  const jsonPatch = Object.fromEntries(Object.entries(json).filter(([, v]) => v !== undefined));
  const statements: BatchItem<"sqlite">[] = [];
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
  // The settings as the change left them, read in the same batch (one round trip in all).
  const read: BatchItem<"sqlite"> = agencySettingsQuery(db, agencyId);
  // Drizzle types a batch as a non-empty tuple, which a spread cannot prove; this one always holds `read`.
  const results: unknown[] = await commit(db, [...statements, read] as unknown as [BatchItem<"sqlite">]);
  return (results[results.length - 1] as AgencySettingsRow[])[0];
}
