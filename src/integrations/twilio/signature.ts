import { timingSafeEqual } from "@/lib/crypto";

/**
 * Twilio's request signature (https://www.twilio.com/docs/usage/security#validating-requests):
 * the full URL Twilio requested, then each POST parameter's name and value, sorted by name,
 * appended without separators; HMAC-SHA1 of that with the account's auth token, base64, in
 * the `X-Twilio-Signature` header.
 */
export async function twilioSignature(authToken: string, url: string, params: URLSearchParams): Promise<string> {
  const names = [...new Set(params.keys())].sort();
  let data = url;
  for (const name of names) for (const value of params.getAll(name)) data += name + value;
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(authToken), { name: "HMAC", hash: "SHA-1" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(data)));
  let binary = "";
  for (const byte of mac) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Whether `signature` is Twilio's for this request; compared in constant time. */
export async function isTwilioSignature(authToken: string, url: string, params: URLSearchParams, signature: string | undefined) {
  if (!signature) return false;
  return timingSafeEqual(signature, await twilioSignature(authToken, url, params));
}
