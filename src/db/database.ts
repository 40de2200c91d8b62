import type { drizzle } from "drizzle-orm/d1";

/** Drizzle over D1, with its own `batch`: only `commit` (outbox.ts) runs one. */
export type DrizzleD1 = ReturnType<typeof drizzle<Record<string, never>>>;

/**
 * Drizzle over D1 (or a D1 session), as every query of the project takes it (client.ts makes
 * one). It has no `batch`: a batch runs through `commit` (outbox.ts), which records the events it
 * writes, so no caller can run one that skips them.
 */
export type Db = Omit<DrizzleD1, "batch">;
