import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { agencies } from "./agencies";
import { createdAt, timestamp, updatedAt } from "./columns";

export const voiceAgents = sqliteTable(
  "voice_agents",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    name: text("name").notNull(),
    status: text("status", { enum: ["active", "inactive"] }).notNull(),
    /** The agent's id at the voice provider (a Vapi assistant id); null for the simulated provider. */
    providerAgentId: text("provider_agent_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // The id too: agents are listed and the default one picked by (created_at, id), read in index order.
  (t) => [index("voice_agents_agency_idx").on(t.agencyId, t.createdAt, t.id)],
);

/** Outbound caller ids of a voice agent (`outbound_phone_number_uuid` in the API). */
export const voicePhoneNumbers = sqliteTable(
  "voice_phone_numbers",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    agentId: text("agent_id")
      .notNull()
      .references(() => voiceAgents.id),
    number: text("number").notNull(),
    /** The number's id at the voice provider (a Vapi phone number id); null for the simulated provider. */
    providerNumberId: text("provider_number_id"),
    createdAt: createdAt(),
  },
  (t) => [
    index("voice_phone_numbers_agent_idx").on(t.agentId),
    // One agency cannot hold the same caller id twice (two agents would both claim it).
    uniqueIndex("voice_phone_numbers_agency_number_unique").on(t.agencyId, t.number),
  ],
);

/** What a Voice AI agent does on reaching voicemail (settings `voice.voicemail_behavior`). */
export const voicemailBehaviors = ["hang_up", "leave_message"] as const;
export type VoicemailBehavior = (typeof voicemailBehaviors)[number];

export const callStatuses = ["scheduled", "queued", "in-progress", "completed", "failed", "canceled"] as const;
export type CallStatus = (typeof callStatuses)[number];

/**
 * Outbound Voice AI calls. `due_at` is the UTC instant the call should be dialed;
 * `scheduled_at` keeps what the partner asked for (null when not scheduled). The consumer
 * claims a call with `UPDATE ... WHERE status = 'queued'`, so a redelivered message never
 * dials twice.
 */
export const voiceCalls = sqliteTable(
  "voice_calls",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    contactId: text("contact_id"),
    contactName: text("contact_name"),
    phone: text("phone").notNull(),
    direction: text("direction").notNull(),
    status: text("status", { enum: callStatuses }).notNull(),
    endedReason: text("ended_reason"),
    durationSeconds: integer("duration_seconds"),
    agentId: text("agent_id"),
    phoneNumberId: text("phone_number_id"),
    scheduledAt: timestamp("scheduled_at"),
    dueAt: timestamp("due_at").notNull(),
    /** When a call held for the agency's calling hours will dial (= `due_at`); null once claimed and for calls never held. */
    dispatchAt: timestamp("dispatch_at"),
    enqueuedAt: timestamp("enqueued_at"),
    attempts: integer("attempts").notNull().default(0),
    providerCallId: text("provider_call_id"),
    /** The agency's `voice.max_call_minutes` and `voice.voicemail_behavior` when the call was dialed, as told to the provider. */
    maxDurationSeconds: integer("max_duration_seconds"),
    voicemailBehavior: text("voicemail_behavior", { enum: voicemailBehaviors }),
    startedAt: timestamp("started_at"),
    endedAt: timestamp("ended_at"),
    summary: text("summary"),
    costCents: integer("cost_cents"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // GET /voice-ai/calls, newest first: unfiltered, by status, by contact. Each page reads
    // about `limit` index entries whatever the agency's number of calls.
    index("voice_calls_agency_created_idx").on(t.agencyId, t.createdAt, t.id),
    index("voice_calls_agency_status_idx").on(t.agencyId, t.status, t.createdAt, t.id),
    index("voice_calls_agency_contact_idx").on(t.agencyId, t.contactId, t.createdAt, t.id),
    index("voice_calls_status_due_idx").on(t.status, t.dueAt),
  ],
);

export const wallets = sqliteTable("wallets", {
  agencyId: text("agency_id")
    .primaryKey()
    .references(() => agencies.id),
  balanceCents: integer("balance_cents").notNull(),
  currency: text("currency").notNull(),
  ratePerMinuteCents: integer("rate_per_minute_cents").notNull(),
  updatedAt: updatedAt(),
});

/**
 * Every change of a wallet balance. A call is debited at most once: the partial unique
 * index on `call_id` for debits makes a second debit of the same call fail.
 */
export const walletLedger = sqliteTable(
  "wallet_ledger",
  {
    id: text("id").primaryKey(),
    agencyId: text("agency_id")
      .notNull()
      .references(() => agencies.id),
    type: text("type", { enum: ["credit", "call_debit"] }).notNull(),
    amountCents: integer("amount_cents").notNull(),
    callId: text("call_id"),
    note: text("note"),
    createdAt: createdAt(),
  },
  (t) => [
    index("wallet_ledger_agency_idx").on(t.agencyId, t.createdAt),
    uniqueIndex("wallet_ledger_call_debit_unique").on(t.callId).where(sql.raw("type = 'call_debit'")),
  ],
);
