import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { voiceAgents, voicePhoneNumbers } from "@/db/schema";
import { isUniqueViolation } from "@/lib/db-errors";
import { badRequest, conflict } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { offsetOf, type Pagination } from "@/lib/pagination";
import { nowIso } from "@/lib/time";
import { voiceMessages } from "./voice-ai.schemas";

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

async function withNumbers(db: Db, agencyId: string, agents: VoiceAgentRow[]): Promise<AgentWithNumbers[]> {
  const numbers: VoicePhoneNumberRow[] = [];
  // D1 binds at most 100 parameters per statement, and a page holds up to 100 agents.
  for (let i = 0; i < agents.length; i += 90) {
    const ids = agents.slice(i, i + 90).map((a) => a.id);
    numbers.push(
      ...(await db
        .select()
        .from(voicePhoneNumbers)
        .where(and(eq(voicePhoneNumbers.agencyId, agencyId), inArray(voicePhoneNumbers.agentId, ids)))
        .orderBy(asc(voicePhoneNumbers.createdAt), asc(sql`${voicePhoneNumbers}.rowid`))
        .all()),
    );
  }
  return agents.map((a) => ({ ...a, numbers: numbers.filter((n) => n.agentId === a.id) }));
}

/** Oldest first: the first agent is the default one, so the list reads in that order. */
export async function listAgents(db: Db, agencyId: string, page: Pagination) {
  const where = eq(voiceAgents.agencyId, agencyId);
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(voiceAgents)
      .where(where)
      .orderBy(asc(voiceAgents.createdAt), asc(sql`${voiceAgents}.rowid`))
      .limit(page.limit)
      .offset(offsetOf(page)),
    db.select({ total: count() }).from(voiceAgents).where(where),
  ]);
  return { rows: await withNumbers(db, agencyId, rows), total: totals[0]?.total ?? 0 };
}

export async function getAgent(db: Db, agencyId: string, agentId: string) {
  const agent = await db.select().from(voiceAgents).where(ofAgency(agencyId, agentId)).get();
  if (!agent) return undefined;
  return (await withNumbers(db, agencyId, [agent]))[0];
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
    await db.batch([db.insert(voiceAgents).values(agent), ...numbers.map((n) => db.insert(voicePhoneNumbers).values(n))]);
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

/**
 * Who places a call and from which number. Unknown or foreign references are 400 (they are
 * body fields, like `path_uuid`); no agent, or an agent without numbers, is 400 too.
 */
export async function resolveDialTarget(
  db: Db,
  agencyId: string,
  refs: { agentId?: string | null; numberId?: string | null },
): Promise<DialTarget> {
  let number: VoicePhoneNumberRow | undefined;
  if (refs.numberId) {
    number = await db
      .select()
      .from(voicePhoneNumbers)
      .where(and(eq(voicePhoneNumbers.id, refs.numberId), eq(voicePhoneNumbers.agencyId, agencyId)))
      .get();
    if (!number) throw badRequest(voiceMessages.unknownNumber);
  }

  let agent: VoiceAgentRow | undefined;
  const agentId = refs.agentId ?? number?.agentId;
  if (agentId) {
    agent = await db.select().from(voiceAgents).where(ofAgency(agencyId, agentId)).get();
    if (!agent) throw badRequest(voiceMessages.unknownAgent);
    if (agent.status !== "active") throw badRequest(voiceMessages.inactiveAgent);
    if (number && number.agentId !== agent.id) throw badRequest(voiceMessages.numberOfOtherAgent);
  } else {
    agent = await db
      .select()
      .from(voiceAgents)
      .where(and(eq(voiceAgents.agencyId, agencyId), eq(voiceAgents.status, "active")))
      .orderBy(asc(voiceAgents.createdAt), asc(sql`${voiceAgents}.rowid`))
      .limit(1)
      .get();
    if (!agent) throw badRequest(voiceMessages.noAgent);
  }

  number ??= await db
    .select()
    .from(voicePhoneNumbers)
    .where(and(eq(voicePhoneNumbers.agencyId, agencyId), eq(voicePhoneNumbers.agentId, agent.id)))
    .orderBy(asc(voicePhoneNumbers.createdAt), asc(sql`${voicePhoneNumbers}.rowid`))
    .limit(1)
    .get();
  if (!number) throw badRequest(voiceMessages.noNumber);
  return { agent, number };
}
