import type { Env } from "@/env";

type GateEnv = Pick<Env, "ACCESS_GATE">;

// idFromName hashes the name on every call; a key's or grant's id never changes, so remember it
// for the isolate's life (ids are plain values, unlike stubs, which belong to the request that made them).
const MAX_REMEMBERED_IDS = 10_000;
const remembered = new WeakMap<object, Map<string, DurableObjectId>>();
function objectId(env: GateEnv, name: string) {
  let ids = remembered.get(env.ACCESS_GATE);
  if (!ids) remembered.set(env.ACCESS_GATE, (ids = new Map()));
  let id = ids.get(name);
  if (!id) {
    if (ids.size >= MAX_REMEMBERED_IDS) ids.clear();
    id = env.ACCESS_GATE.idFromName(name);
    ids.set(name, id);
  }
  return id;
}

/** The AccessGate of an API key. */
export const keyGate = (env: GateEnv, keyId: string) => env.ACCESS_GATE.get(objectId(env, `key:${keyId}`));

/** The AccessGate of a connected app's grant (OAuth): its tokens' checks and its rate limits. */
export const grantGate = (env: GateEnv, grantId: string) => env.ACCESS_GATE.get(objectId(env, `grant:${grantId}`));

/** The AccessGate counting requests of one client IP (no key identity). */
export const ipGate = (env: GateEnv, ip: string) => env.ACCESS_GATE.get(env.ACCESS_GATE.idFromName(`ip:${ip}`));

/**
 * Call after every write to a key's row (revoke, renew, rotate, scope or multiplier edit), so
 * the change holds from the very next request.
 */
export const invalidateKey = (env: GateEnv, keyId: string) => keyGate(env, keyId).invalidate();

/** Call when a grant's agency moves: its next request reads where the agency lives again. */
export const invalidateGrant = (env: GateEnv, grantId: string) => grantGate(env, grantId).invalidate();
