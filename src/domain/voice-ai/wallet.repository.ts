import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { voiceCalls, walletLedger, wallets } from "@/db/schema";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";
import { commit } from "@/db/outbox";

export const DEFAULT_CURRENCY = "USD";
/** What a started minute costs when the operator has not set a rate. */
export const DEFAULT_RATE_PER_MINUTE_CENTS = 12;

export type WalletRow = typeof wallets.$inferSelect;

/** An agency that was never credited has an empty wallet at the default rate. */
export const toPublicWallet = (w: WalletRow | undefined) => ({
  balance_cents: w?.balanceCents ?? 0,
  currency: w?.currency ?? DEFAULT_CURRENCY,
  rate_per_minute_cents: w?.ratePerMinuteCents ?? DEFAULT_RATE_PER_MINUTE_CENTS,
  updated_at: w?.updatedAt ?? null,
});

/** The agency's wallet (primary key), as a query that can go into a batch. */
export const walletQuery = (db: Db, agencyId: string) => db.select().from(wallets).where(eq(wallets.agencyId, agencyId));

export const getWallet = (db: Db, agencyId: string) => walletQuery(db, agencyId).get();

/** The wallet row, created empty at the default rate when missing (inside a batch). */
const ensureWallet = (db: Db, agencyId: string, now: string) =>
  db
    .insert(wallets)
    .values({ agencyId, balanceCents: 0, currency: DEFAULT_CURRENCY, ratePerMinuteCents: DEFAULT_RATE_PER_MINUTE_CENTS, updatedAt: now })
    .onConflictDoNothing();

/** Adds funds: one ledger row and the balance change in one batch (atomic). */
export async function creditWallet(
  db: Db,
  agencyId: string,
  input: { amountCents: number; note?: string | null; ratePerMinuteCents?: number },
) {
  const now = nowIso();
  const [, , updated] = await commit(db, [
    ensureWallet(db, agencyId, now),
    db.insert(walletLedger).values({
      id: newId(),
      agencyId,
      type: "credit",
      amountCents: input.amountCents,
      callId: null,
      note: input.note ?? null,
      createdAt: now,
    }),
    db
      .update(wallets)
      .set({
        balanceCents: sql`${wallets.balanceCents} + ${input.amountCents}`,
        ...(input.ratePerMinuteCents !== undefined ? { ratePerMinuteCents: input.ratePerMinuteCents } : {}),
        updatedAt: now,
      })
      .where(eq(wallets.agencyId, agencyId))
      .returning(),
  ]);
  return updated[0]!;
}

/** Each started minute is charged: 61 s is two minutes; a call that never connected costs nothing. */
export const callCostCents = (durationSeconds: number, ratePerMinuteCents: number) =>
  Math.ceil(Math.max(0, durationSeconds) / 60) * ratePerMinuteCents;

/**
 * Statements that debit a call's `cost_cents`, for the same `commit` batch as the update that
 * completes the call. They read the call row itself, so they charge only a call that is now
 * `completed` with a cost, and the partial unique index on `wallet_ledger.call_id` (debits)
 * lets at most one debit per call exist: a second completion of the same call inserts
 * nothing (ON CONFLICT DO NOTHING), and the balance changes only by the ledger row this
 * batch inserted (looked up by its fresh id).
 */
export function callDebitStatements(db: Db, agencyId: string, callId: string, now: string) {
  const ledgerId = newId();
  return [
    ensureWallet(db, agencyId, now),
    db
      .insert(walletLedger)
      .select(
        sql`SELECT ${ledgerId}, ${voiceCalls.agencyId}, 'call_debit', -${voiceCalls.costCents}, ${voiceCalls.id}, 'Voice AI call', ${now}
            FROM ${voiceCalls}
            WHERE ${voiceCalls.id} = ${callId} AND ${voiceCalls.agencyId} = ${agencyId}
              AND ${voiceCalls.status} = 'completed' AND ${voiceCalls.costCents} > 0`,
      )
      .onConflictDoNothing(),
    db
      .update(wallets)
      .set({
        balanceCents: sql`${wallets.balanceCents} + (SELECT ${walletLedger.amountCents} FROM ${walletLedger} WHERE ${walletLedger.id} = ${ledgerId})`,
        updatedAt: now,
      })
      .where(and(eq(wallets.agencyId, agencyId), sql`EXISTS (SELECT 1 FROM ${walletLedger} WHERE ${walletLedger.id} = ${ledgerId})`)),
  ] as const;
}
