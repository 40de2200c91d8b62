import type { Env } from "@/env";

type GateEnv = Pick<Env, "ACCESS_GATE">;

/** The AccessGate of an API key. */
export const keyGate = (env: GateEnv, keyId: string) => env.ACCESS_GATE.get(env.ACCESS_GATE.idFromName(`key:${keyId}`));

/** The AccessGate counting requests of one client IP (no key identity). */
export const ipGate = (env: GateEnv, ip: string) => env.ACCESS_GATE.get(env.ACCESS_GATE.idFromName(`ip:${ip}`));

/**
 * Call after every write to a key's row (revoke, renew, rotate, scope or multiplier edit), so
 * the change holds from the very next request.
 */
export const invalidateKey = (env: GateEnv, keyId: string) => keyGate(env, keyId).invalidate();
