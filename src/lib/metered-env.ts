import { isShardName } from "@/db/shards";
import type { Env } from "@/env";
import { recordRowsRead, type RowsReadRecorder } from "@/db/rows-read";

/**
 * The benchmark's count of a job's D1 work (`npm run bench`, BENCH_METRICS=on only): the env
 * with every shard binding counting its round trips and statements, for the cron's figures per
 * shard count (docs/operations.md, Scaling). Otherwise the env itself, and no figures.
 */
export function meteredEnv(env: Env): { env: Env; d1: () => Record<string, number> } {
  if (env.BENCH_METRICS !== "on") return { env, d1: () => ({}) };
  const recorders = new Map<string, RowsReadRecorder>();
  const metered = new Proxy(env, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof prop !== "string" || !isShardName(prop) || typeof (value as D1Database | undefined)?.prepare !== "function") return value;
      let recorder = recorders.get(prop);
      if (!recorder) recorders.set(prop, (recorder = recordRowsRead(value as unknown as D1DatabaseSession, value as D1Database)));
      return recorder.session;
    },
  });
  const sum = (f: (r: RowsReadRecorder) => number) => [...recorders.values()].reduce((n, r) => n + f(r), 0);
  return { env: metered, d1: () => ({ d1_round_trips: sum((r) => r.roundTrips()), d1_statements: sum((r) => r.statements()) }) };
}
