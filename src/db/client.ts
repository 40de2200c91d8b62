import { drizzle } from "drizzle-orm/d1";
import * as schema from "@/db/schema";

/**
 * Drizzle over D1 or a D1 session (read replication). A session has the same prepare/batch
 * surface Drizzle uses; only its type is narrower.
 */
export const createDb = (d1: D1Database | D1DatabaseSession) => drizzle(d1 as D1Database, { schema });
export type Db = ReturnType<typeof createDb>;
