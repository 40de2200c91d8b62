const encoder = new TextEncoder();

// Every token is hashed on every request: a table lookup per byte, not a string per byte.
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
const toHex = (buffer: ArrayBuffer) => {
  let hex = "";
  for (const b of new Uint8Array(buffer)) hex += HEX[b];
  return hex;
};

/** 32 random bytes (256 bits) as base64url, for secrets. */
export function randomSecret(bytes = 32): string {
  const data = crypto.getRandomValues(new Uint8Array(bytes));
  let binary = "";
  for (const b of data) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export async function sha256Hex(...parts: (string | Uint8Array)[]): Promise<string> {
  const chunks = parts.map((p) => (typeof p === "string" ? encoder.encode(p) : p));
  const joined = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.length;
  }
  return toHex(await crypto.subtle.digest("SHA-256", joined));
}

// The pepper never changes while the Worker runs: import its HMAC key once per isolate.
const hmacKeys = new Map<string, Promise<CryptoKey>>();
const hmacKey = (pepper: string) => {
  let key = hmacKeys.get(pepper);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(pepper), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    hmacKeys.set(pepper, key);
  }
  return key;
};

/** SHA-256, keyed with the pepper (HMAC) when one is configured. */
export async function hashSecret(value: string, pepper?: string): Promise<string> {
  if (!pepper) return sha256Hex(value);
  return toHex(await crypto.subtle.sign("HMAC", await hmacKey(pepper), encoder.encode(value)));
}

/** Constant-time comparison, for the operator token. */
export function timingSafeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  let diff = left.length ^ right.length;
  for (let i = 0; i < Math.max(left.length, right.length); i++) diff |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return diff === 0;
}
