import type { ApiKeyRow } from "@/domain/auth/api-keys.repository";

export type KeyStatus = "active" | "revoked" | "expired";

/** Revoked wins over expired: a revoked key can never be renewed back to life. */
export function keyStatus(key: Pick<ApiKeyRow, "revokedAt" | "expiresAt">, nowIso: string): KeyStatus {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && key.expiresAt <= nowIso) return "expired";
  return "active";
}
