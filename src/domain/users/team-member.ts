import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { members } from "@/db/schema";
import { badRequest } from "@/lib/errors";

/** The five names a partner may use for a team member (the specification's team member targeting: docs/decisions/resources.md). */
export const TEAM_MEMBER_ALIASES = ["agent_uuid", "agentUuid", "user_uuid", "user", "agent"] as const;

export const TEAM_MEMBER_NOT_FOUND = "Team member not found in this agency";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The team member id a request names through any of the aliases, in the query and the body,
 * without touching storage. Two different members is ambiguous: 400. Null when no alias is
 * present. Routes that read in one D1 batch check membership there; others call
 * `resolveTeamMember`.
 */
export function requestedTeamMember(...sources: (Record<string, unknown> | undefined)[]): string | null {
  const given = new Set<string>();
  for (const source of sources) {
    for (const alias of TEAM_MEMBER_ALIASES) {
      const value = source?.[alias];
      if (value === undefined || value === null || value === "") continue;
      if (typeof value !== "string" || !UUID.test(value)) throw badRequest(`${alias} must be a UUID`);
      given.add(value.toLowerCase());
    }
  }
  if (given.size === 0) return null;
  if (given.size > 1) throw badRequest(`Give one team member: ${TEAM_MEMBER_ALIASES.join(", ")} name different members`);
  return [...given][0]!;
}

/** A live (not removed) member of the agency, by id (primary key). */
export const liveMemberWhere = (agencyId: string, memberId: string) =>
  and(eq(members.id, memberId.toLowerCase()), eq(members.agencyId, agencyId), isNull(members.removedAt));

/** The team member, if a live member of this agency, as a query (for a batch, or awaited). */
export const liveMemberQuery = (db: Db, agencyId: string, memberId: string) =>
  db.select().from(members).where(liveMemberWhere(agencyId, memberId));

/**
 * The named team member, which must be a live member of the caller's agency (a member of
 * another agency, or a removed one, is 400). Null when no alias is present.
 */
export async function resolveTeamMember(
  db: Db,
  agencyId: string,
  ...sources: (Record<string, unknown> | undefined)[]
): Promise<{ id: string; name: string } | null> {
  const id = requestedTeamMember(...sources);
  if (id === null) return null;
  const member = await liveMemberQuery(db, agencyId, id).get();
  if (!member) throw badRequest(TEAM_MEMBER_NOT_FOUND);
  return { id: member.id, name: member.name };
}
