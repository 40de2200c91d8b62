import type { KeyValue } from "@/db/list-order";
import { hashSecret, timingSafeEqual } from "@/lib/crypto";
import { tokenPepperMissing } from "@/lib/token-pepper";

/**
 * Opaque list cursors (docs/decisions/lists-and-bulk.md). A cursor carries where the previous page
 * ended (its last record's sort keys), the next page's number and the total counted when the
 * walk began, so a cursor page neither re-counts nor skips rows. It is bound to one list of
 * one agency with one set of filters by an HMAC-SHA-256 over that binding, always keyed with
 * TOKEN_PEPPER: there is no unkeyed fallback, so a cursor cannot be forged, and a deployment
 * without a pepper refuses to serve (src/lib/token-pepper.ts). Even a forged one would only
 * start a page of the caller's own list at a chosen place, since every list query is scoped
 * to the caller's agency regardless.
 */

export interface CursorState {
  /** The number of the page this cursor opens. */
  page: number;
  /** The count of matches when the walk began. */
  total: number;
  /** The sort keys of the last record of the previous page, tie-breaker last. */
  after: KeyValue[];
}

const MAC_LENGTH = 32;

const toBase64Url = (text: string) => {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
};

const fromBase64Url = (encoded: string) => {
  const binary = atob(encoded.replaceAll("-", "+").replaceAll("_", "/"));
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
};

async function macOf(payload: string, binding: string, pepper: string) {
  // hashSecret would fall back to a plain SHA-256 (token hashes keep that for old deployments); a cursor never does.
  if (pepper.trim() === "") throw tokenPepperMissing();
  return (await hashSecret(`cursor\n${binding}\n${payload}`, pepper)).slice(0, MAC_LENGTH);
}

export async function sealCursor(state: CursorState, binding: string, pepper: string): Promise<string> {
  const payload = toBase64Url(JSON.stringify([state.page, state.total, ...state.after]));
  return `${payload}.${await macOf(payload, binding, pepper)}`;
}

const isKeyValue = (value: unknown): value is KeyValue => value === null || typeof value === "string" || typeof value === "number";

/** The state of a cursor sealed for `binding` with `keys` sort keys, or undefined when it is not one. */
export async function openCursor(token: string, binding: string, keys: number, pepper: string): Promise<CursorState | undefined> {
  const [payload, mac, ...rest] = token.split(".");
  if (!payload || !mac || rest.length > 0 || mac.length !== MAC_LENGTH) return undefined;
  if (!timingSafeEqual(mac, await macOf(payload, binding, pepper))) return undefined;
  let values: unknown;
  try {
    values = JSON.parse(fromBase64Url(payload));
  } catch {
    return undefined;
  }
  if (!Array.isArray(values) || values.length !== keys + 2) return undefined;
  const [page, total, ...after] = values as unknown[];
  if (!Number.isSafeInteger(page) || (page as number) < 2 || !Number.isSafeInteger(total) || (total as number) < 0) return undefined;
  if (!after.every(isKeyValue)) return undefined;
  return { page: page as number, total: total as number, after };
}
