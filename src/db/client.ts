import { drizzle } from "drizzle-orm/d1";
import type { Db } from "./database";

export type { Db };

/**
 * Drizzle over D1 or a D1 session (read replication). A session has the same prepare/batch
 * surface Drizzle uses; only its type is narrower. No `schema` option: we use the query
 * builder only, and passing the schema would rebuild Drizzle's relational metadata for every
 * table on every request. Batches run through `commit` (outbox.ts), which records their events.
 */
export const createDb = (d1: D1Database | D1DatabaseSession): Db => drizzle(d1 as D1Database);
