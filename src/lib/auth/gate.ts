import type { Env } from "@/env";

type GateEnv = Pick<Env, "ACCESS_GATE">;

// idFromName hashes the name on every call; a key's id never changes, so remember it for the
// isolate's life (ids are plain values, unlike stubs, which belong to the request that made them).
const MAX_REMEMBERED_IDS = 10_000;
const remembered = new WeakMap<object, Map<string, DurableObjectId>>();
function keyObjectId(env: GateEnv, keyId: string) {
  let ids = remembered.get(env.ACCESS_GATE);
  if (!ids) remembered.set(env.ACCESS_GATE, (ids = new Map()));
  let id = ids.get(keyId);
  if (!id) {
    if (ids.size >= MAX_REMEMBERED_IDS) ids.clear();
    id = env.ACCESS_GATE.idFromName(`key:${keyId}`);
    ids.set(keyId, id);
  }
  return id;
}

/** The AccessGate of an API key. */
export const keyGate = (env: GateEnv, keyId: string) => env.ACCESS_GATE.get(keyObjectId(env, keyId));

/** The AccessGate counting requests of one client IP (no key identity). */
export const ipGate = (env: GateEnv, ip: string) => env.ACCESS_GATE.get(env.ACCESS_GATE.idFromName(`ip:${ip}`));

/**
 * Call after every write to a key's row (revoke, renew, rotate, scope or multiplier edit), so
 * the change holds from the very next request.
 */
export const invalidateKey = (env: GateEnv, keyId: string) => keyGate(env, keyId).invalidate();
