import type { drizzle } from "drizzle-orm/d1";

/** Drizzle over D1 (or a D1 session), as every query of the project takes it (client.ts makes one). */
export type Db = ReturnType<typeof drizzle<Record<string, never>>>;
