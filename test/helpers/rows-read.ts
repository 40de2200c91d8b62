import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import { app } from "@/app";
import { BASE } from "./http";

/** Rows D1 read for one GET of the Partner API, with the benchmark's metrics on (see src/db/rows-read.ts), and its answer. */
export async function measuredGet(token: string, path: string) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${BASE}/api/v2${path}`, { headers: { Authorization: `Bearer ${token}`, "X-Bench-Rows-Read": "1" } }),
    { ...env, BENCH_METRICS: "on" },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const body = (await res.json()) as any;
  expect(res.status, `${path}: ${JSON.stringify(body)}`).toBe(200);
  return { rows: Number(res.headers.get("X-Bench-Rows-Read")), body };
}
