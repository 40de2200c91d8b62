import { and, asc, count, eq, inArray, isNull, or, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { listOrder, type PageWindow } from "@/db/list-order";
import { agencySettings, voiceAgents, voicePhoneNumbers } from "@/db/schema";
import { isUniqueViolation } from "@/lib/db-errors";
import { badRequest, conflict } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";
import { voiceMessages } from "./voice-ai.rules";
import { commit } from "@/db/outbox";

export type VoiceAgentRow = typeof voiceAgents.$inferSelect;
export type VoicePhoneNumberRow = typeof voicePhoneNumbers.$inferSelect;
export type AgentWithNumbers = VoiceAgentRow & { numbers: VoicePhoneNumberRow[] };

export const toPublicAgent = (a: AgentWithNumbers) => ({
  agent_uuid: a.id,
  name: a.name,
  status: a.status,
  phone_numbers: a.numbers.map((n) => ({ outbound_phone_number_uuid: n.id, number: n.number })),
  created_at: a.createdAt,
  updated_at: a.updatedAt,
});

const ofAgency = (agencyId: string, agentId: string) => and(eq(voiceAgents.id, agentId.toLowerCase()), eq(voiceAgents.agencyId, agencyId));

/** Agents oldest first (rowid breaks ties): the first active one is the default one. */
/** Oldest first, the id on ties: the list's order, and the first active agent is the default one. */
export const agentOrder = listOrder("asc", { createdAt: voiceAgents.createdAt, id: voiceAgents.id });
const oldestFirst = agentOrder.orderBy;
const numbersInOrder = [asc(voicePhoneNumbers.createdAt), asc(sql`${voicePhoneNumbers}.rowid`)] as const;

/** Each agent with its numbers (oldest first), from the rows of one batch. */
function withNumbers(agents: VoiceAgentRow[], numbers: VoicePhoneNumberRow[]): AgentWithNumbers[] {
  const byAgent = new Map<string, VoicePhoneNumberRow[]>();
  for (const n of numbers) {
    const list = byAgent.get(n.agentId);
    if (list) list.push(n);
    else byAgent.set(n.agentId, [n]);
  }
  return agents.map((a) => ({ ...a, numbers: byAgent.get(a.id) ?? [] }));
}

/**
 * Oldest first: the first agent is the default one, so the list reads in that order. One D1
 * round trip: the page, the total and the page's numbers (selected through the same page as a
 * subquery, so no query waits for another's rows) in one batch.
 */
export async function listAgents(db: Db, agencyId: string, page: PageWindow) {
  const where = eq(voiceAgents.agencyId, agencyId);
  const [rows, totals, numbers] = await commit(db, [
    db.select().from(voiceAgents).where(agentOrder.where(page, where)).orderBy(...oldestFirst).limit(page.read).offset(page.offset),
    // A cursor page carries its total: the count then reads nothing.
    db.select({ total: count() }).from(voiceAgents).where(page.total === undefined ? where : sql`0`),
    db
      .select()
      .from(voicePhoneNumbers)
      .where(
        and(
          eq(voicePhoneNumbers.agencyId, agencyId),
          inArray(
            voicePhoneNumbers.agentId,
            db.select({ id: voiceAgents.id }).from(voiceAgents).where(agentOrder.where(page, where)).orderBy(...oldestFirst).limit(page.read).offset(page.offset),
          ),
        ),
      )
      .orderBy(...numbersInOrder),
  ]);
  return { rows: withNumbers(rows, numbers), total: page.total ?? totals[0]?.total ?? 0 };
}

/** One agent with its numbers: one D1 round trip (one batch). */
export async function getAgent(db: Db, agencyId: string, agentId: string): Promise<AgentWithNumbers | undefined> {
  const [agents, numbers] = await commit(db, [
    db.select().from(voiceAgents).where(ofAgency(agencyId, agentId)),
    db
      .select()
      .from(voicePhoneNumbers)
      .where(and(eq(voicePhoneNumbers.agentId, agentId.toLowerCase()), eq(voicePhoneNumbers.agencyId, agencyId)))
      .orderBy(...numbersInOrder),
  ]);
  const agent = agents[0];
  return agent ? withNumbers([agent], numbers)[0] : undefined;
}

export interface NewVoiceAgent {
  name: string;
  status: "active" | "inactive";
  providerAgentId: string | null;
  numbers: { number: string; providerNumberId: string | null }[];
}

/** Agent and numbers in one batch; a number the agency already uses is 409 (unique index). */
export async function createAgent(db: Db, agencyId: string, input: NewVoiceAgent): Promise<AgentWithNumbers> {
  const now = nowIso();
  const agent: VoiceAgentRow = {
    id: newId(),
    agencyId,
    name: input.name,
    status: input.status,
    providerAgentId: input.providerAgentId,
    createdAt: now,
    updatedAt: now,
  };
  const numbers: VoicePhoneNumberRow[] = input.numbers.map((n) => ({
    id: newId(),
    agencyId,
    agentId: agent.id,
    number: n.number,
    providerNumberId: n.providerNumberId,
    createdAt: now,
  }));
  try {
    await commit(db, [db.insert(voiceAgents).values(agent), ...numbers.map((n) => db.insert(voicePhoneNumbers).values(n))]);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const taken = await db
      .select({ number: voicePhoneNumbers.number })
      .from(voicePhoneNumbers)
      .where(and(eq(voicePhoneNumbers.agencyId, agencyId), inArray(voicePhoneNumbers.number, numbers.map((n) => n.number))))
      .get();
    throw conflict(
      taken ? `Phone number ${taken.number} is already used by a voice agent of this agency` : "A phone number is already used by a voice agent of this agency",
    );
  }
  return { ...agent, numbers };
}

export interface DialTarget {
  agent: VoiceAgentRow;
  number: VoicePhoneNumberRow;
}

export interface DialRefs {
  agentId?: string | null;
  numberId?: string | null;
}

/** The agency's active agents, oldest first (`voice_agents_agency_idx`): the first is the default one. */
const activeOfAgency = (agencyId: string) => and(eq(voiceAgents.agencyId, agencyId), eq(voiceAgents.status, "active"));

/**
 * The agency's `voice.default_voice_agent_uuid` setting as a scalar subquery: NULL when unset
 * (or, in a damaged row, not a string, which the settings' own reading also ignores).
 */
const defaultAgentIdSql = (agencyId: string) => sql`(
  SELECT CASE WHEN json_type(${agencySettings.settings}, '$.voice.default_voice_agent_uuid') = 'text'
    THEN lower(json_extract(${agencySettings.settings}, '$.voice.default_voice_agent_uuid')) END
  FROM ${agencySettings} WHERE ${agencySettings.agencyId} = ${agencyId})`;

/**
 * Who places a call and from which number, as two queries for one `commit` batch (they do not
 * wait for each other's answers: what one needs from the other is a subquery):
 * - the agent: the one sent, else the agent of the number sent, else the agency's default
 *   agent from settings (whatever its status, so `pickDialTarget` can say what is wrong with
 *   it), else the first active one;
 * - the number: the one sent, else the first number of that agent.
 * `pickDialTarget` then decides from their rows.
 */
export function dialTargetQueries(db: Db, agencyId: string, refs: DialRefs) {
  const numberOfAgency = (numberId: string) => and(eq(voicePhoneNumbers.id, numberId), eq(voicePhoneNumbers.agencyId, agencyId));
  const agentIdOfNumber = (numberId: string) =>
    db.select({ id: voicePhoneNumbers.agentId }).from(voicePhoneNumbers).where(numberOfAgency(numberId));
  const defaultAgentId = defaultAgentIdSql(agencyId);
  const firstActiveId = db.select({ id: voiceAgents.id }).from(voiceAgents).where(activeOfAgency(agencyId)).orderBy(...oldestFirst).limit(1);

  const agent = refs.agentId
    ? db.select().from(voiceAgents).where(ofAgency(agencyId, refs.agentId))
    : refs.numberId
      ? db
          .select()
          .from(voiceAgents)
          .where(and(eq(voiceAgents.agencyId, agencyId), sql`${voiceAgents.id} = (${agentIdOfNumber(refs.numberId)})`))
      : db
          .select()
          .from(voiceAgents)
          .where(
            and(
              eq(voiceAgents.agencyId, agencyId),
              or(eq(voiceAgents.id, defaultAgentId), and(isNull(defaultAgentId), eq(voiceAgents.status, "active"))),
            ),
          )
          .orderBy(...oldestFirst)
          .limit(1);

  const agentId = refs.agentId ? refs.agentId.toLowerCase() : sql`coalesce(${defaultAgentId}, (${firstActiveId}))`;
  const number = refs.numberId
    ? db.select().from(voicePhoneNumbers).where(numberOfAgency(refs.numberId))
    : db
        .select()
        .from(voicePhoneNumbers)
        .where(and(eq(voicePhoneNumbers.agencyId, agencyId), eq(voicePhoneNumbers.agentId, agentId)))
        .orderBy(...numbersInOrder)
        .limit(1);
  return [agent, number] as const;
}

/**
 * Decides the dial target from the rows of `dialTargetQueries`. Unknown or foreign references
 * are 400 (they are body fields, like `path_uuid`); a default agent from settings that is gone
 * or inactive, no agent at all, or an agent without numbers, is 400 too. Checked in this
 * order: the number sent, the agent, the number of the agent. `defaultAgentId` is the
 * agency's `voice.default_voice_agent_uuid` setting.
 */
export function pickDialTarget(
  refs: DialRefs,
  defaultAgentId: string | null,
  agent: VoiceAgentRow | undefined,
  number: VoicePhoneNumberRow | undefined,
): DialTarget {
  if (refs.numberId && !number) throw badRequest(voiceMessages.unknownNumber);
  if (refs.agentId || refs.numberId) {
    if (!agent) throw badRequest(voiceMessages.unknownAgent);
    if (agent.status !== "active") throw badRequest(voiceMessages.inactiveAgent);
    if (refs.numberId && number!.agentId !== agent.id) throw badRequest(voiceMessages.numberOfOtherAgent);
  } else if (defaultAgentId) {
    if (!agent) throw badRequest(voiceMessages.defaultAgentGone);
    if (agent.status !== "active") throw badRequest(voiceMessages.defaultAgentInactive);
  } else if (!agent) {
    throw badRequest(voiceMessages.noAgent);
  }
  if (!number) throw badRequest(voiceMessages.noNumber);
  return { agent, number };
}
