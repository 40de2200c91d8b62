import { describe, expect, it } from "vitest";
// Twilio's own signing helper: the one Twilio's SDKs validate with.
import { getExpectedTwilioSignature } from "twilio/lib/webhooks/webhooks";
import { tokenPepperMessages } from "@/lib/token-pepper";
import { admin, ADMIN_TOKEN, api } from "../helpers/http";
import { setupAgency } from "../helpers/factories";
import { dbOf } from "../helpers/shards";
import { send } from "../helpers/providers";
import { envWith } from "../helpers/voice-factories";

const PUBLIC = "https://partner.test";
const TWILIO_AUTH_TOKEN = "twilio-test-auth-token";

/** A request to the Worker as deployed with this TOKEN_PEPPER (and Twilio configured, for its callback). */
function sendWithPepper(pepper: string | undefined, path: string, init: RequestInit = {}) {
  const deployed = envWith({ TOKEN_PEPPER: pepper, SMS_PROVIDER: "twilio", TWILIO_ACCOUNT_SID: "AC00000000000000000000000000000001", TWILIO_AUTH_TOKEN, PUBLIC_BASE_URL: PUBLIC });
  return send(deployed, path, init);
}

const json = (method: string, token: string | undefined, body?: unknown): RequestInit => ({
  method,
  headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
  body: body === undefined ? undefined : JSON.stringify(body),
});

describe("a deployment without TOKEN_PEPPER", () => {
  it.each([
    ["unset", undefined],
    ["empty", ""],
    ["blank", "   "],
  ])("fails closed when it is %s: every request but provider callbacks is 503 not_configured naming the secret, and nothing is written", async (_name, pepper) => {
    const { agencyUuid, token } = await setupAgency();
    const requests: [string, RequestInit][] = [
      ["/health", {}],
      ["/api/v2/openapi.json", {}],
      ["/api/v2/contacts", json("GET", token)],
      ["/api/v2/contacts?cursor=abc.def", json("GET", token)],
      ["/api/v2/contacts", json("POST", token, { first_name: "Ada", last_name: "Lovelace" })],
      ["/api/v2/auth/token/renew", json("POST", undefined, { access_token: token, rotate_key: "par_x" })],
      [`/admin/v1/agencies/${agencyUuid}/keys`, json("POST", ADMIN_TOKEN, { name: "Unpeppered", scopes: ["contacts"] })],
      ["/admin/v1/agencies", json("GET", ADMIN_TOKEN)],
      ["/mcp", json("POST", token, { jsonrpc: "2.0", id: 1, method: "tools/list" })],
      ["/dashboard/keys", {}],
      ["/.well-known/oauth-authorization-server", {}],
      ["/no-such-route", {}],
    ];
    for (const [path, init] of requests) {
      const res = await sendWithPepper(pepper, path, init);
      const what = `${init.method ?? "GET"} ${path}`;
      expect(res.status, what).toBe(503);
      expect(res.body, what).toEqual({ success: false, error: tokenPepperMessages.missing, code: "not_configured" });
      expect(res.headers.get("X-Request-Id"), what).toBeTruthy();
    }
    expect(tokenPepperMessages.missing).toContain("npx wrangler secret put TOKEN_PEPPER");
    // Nothing was written: no contact, and the agency still has its one key.
    const db = await dbOf(agencyUuid);
    expect(await db.prepare("SELECT count(*) AS n FROM contacts WHERE agency_id = ?").bind(agencyUuid).first("n")).toBe(0);
    expect((await admin("GET", `/agencies/${agencyUuid}/keys`)).body.keys).toHaveLength(1);
    // The same requests are served once the pepper is there.
    expect((await api("GET", "/contacts", { token })).status).toBe(200);
  });

  it("still takes provider callbacks: a signed inbound text is stored (Twilio does not send it again)", async () => {
    const { agencyUuid } = await setupAgency();
    const number = `+1415778${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;
    expect((await admin("PUT", `/agencies/${agencyUuid}/sms-number`, { number })).status).toBe(200);
    const sid = `SM${crypto.randomUUID().replaceAll("-", "")}`;
    const params = { AccountSid: "AC00000000000000000000000000000001", To: number, From: "+14155550172", Body: "Still there?", NumMedia: "0", MessageSid: sid };
    const res = await sendWithPepper(undefined, "/providers/twilio/sms", {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Twilio-Signature": getExpectedTwilioSignature(TWILIO_AUTH_TOKEN, `${PUBLIC}/providers/twilio/sms`, params),
      },
      body: new URLSearchParams(params).toString(),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const db = await dbOf(agencyUuid);
    expect(await db.prepare("SELECT body FROM messages WHERE agency_id = ? AND provider_message_id = ?").bind(agencyUuid, sid).first("body")).toBe("Still there?");
  });
});
