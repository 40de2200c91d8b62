/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): `v1,<base64 HMAC-SHA256>`
 * over `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the bytes of the secret after its
 * `whsec_` prefix. Each live secret signs, and the signatures are joined by spaces, so a
 * receiver verifies with whichever secret it holds (both, for 24 hours after a rotation).
 */
export const SECRET_PREFIX = "whsec_";

const toBase64 = (bytes: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** A new secret: `whsec_` and the base64 of 32 random bytes. */
export const newWebhookSecret = () => `${SECRET_PREFIX}${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`;

// Importing a key costs more than the HMAC itself; an isolate keeps the few it has used.
const keys = new Map<string, Promise<CryptoKey>>();
const MAX_CACHED_KEYS = 256;

function keyOf(secret: string) {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_CACHED_KEYS) keys.clear();
    const raw = fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
    key = crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, key);
  }
  return key;
}

export async function sign(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await keyOf(secret), new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${toBase64(mac)}`;
}

/** The `webhook-signature` header: one signature per live secret. */
export async function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string) {
  return (await Promise.all(secrets.map((s) => sign(s, id, timestamp, body)))).join(" ");
}
