import { drizzle } from "drizzle-orm/d1";
import { trackEvents } from "./written-events";

/**
 * Drizzle over D1 or a D1 session (read replication). A session has the same prepare/batch
 * surface Drizzle uses; only its type is narrower. No `schema` option: we use the query
 * builder only, and passing the schema would rebuild Drizzle's relational metadata for every
 * table on every request.
 *
 * Its `batch` notes which events a batch wrote that have webhook deliveries (written-events.ts).
 */
export const createDb = (d1: D1Database | D1DatabaseSession) => trackEvents(drizzle(d1 as D1Database));
export type { Db } from "./database";
