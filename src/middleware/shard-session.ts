import type { Context } from "hono";
import { createDb, type Db } from "@/db/client";
import { shardDatabase } from "@/db/shards";
import type { AppBindings } from "@/lib/context";
import { recordRowsRead } from "@/db/rows-read";

/**
 * The request's database: a D1 session on the shard of the agency it acts for (read
 * replication). Reads may be served by a nearby replica ("first-unconstrained"), or by one at
 * least as new as the bookmark the client sent back, when that bookmark is of this shard (one
 * of another database is ignored); writes start at the primary, and `primary` requests (the
 * operator API, the dashboard: a revoked key or an ended session must never be read late) run
 * there whatever they send. The response returns the session's bookmark, tagged with
 * its shard (request-context.ts).
 */
export function useShard<E extends AppBindings>(context: Context<E>, shard: string, mode: "request" | "primary" = "request"): Db {
  // Every app's variables extend AppBindings' (the dashboard adds its session and form).
  const c = context as unknown as Context<AppBindings>;
  const d1 = shardDatabase(c.env, shard);
  const sent = c.get("bookmark");
  const isRead = c.req.method === "GET" || c.req.method === "HEAD";
  const start = mode === "primary" ? "first-primary" : sent?.shard === shard ? sent.bookmark : isRead ? "first-unconstrained" : "first-primary";
  const session = d1.withSession(start);
  const recorder = c.env.BENCH_METRICS === "on" && c.req.header("X-Bench-Rows-Read") === "1" ? recordRowsRead(session, d1) : null;
  const db = createDb(recorder?.session ?? session);
  c.set("db", db);
  c.set("shardSession", { shard, session, recorder });
  return db;
}
