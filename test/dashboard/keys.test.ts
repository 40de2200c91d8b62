import { describe, expect, it } from "vitest";
import { admin, api, expectError, uniqueIp } from "../helpers/http";
import { setupAgency } from "../helpers/factories";
import { auditEntries, browse, createKeyOnPage, escaped, inputValue, KEYS_PATH, signIn, submit } from "../helpers/dashboard";

const UNKNOWN_UUID = "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70";
const keyPath = (keyId: string) => `${KEYS_PATH}/${keyId}`;

const renew = (access_token: string, rotate_key: string) => api("POST", "/auth/token/renew", { body: { access_token, rotate_key }, ip: uniqueIp() });
const listContacts = (token: string) => api("GET", "/contacts", { token });
const listFields = (token: string) => api("GET", "/fields", { token });

describe("Integrations > API keys: create", () => {
  it("creates a key with two scopes, shows both secrets once, and the token works at once on those scopes only", async () => {
    const session = await signIn();
    const { page, keyId, token, rotateKey } = await createKeyOnPage(session, "CRM sync", ["contacts", "fields"]);
    expect(token).toMatch(/^pa_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/);
    expect(token.slice(3, 35)).toBe(keyId.replaceAll("-", ""));
    expect(rotateKey).toMatch(/^par_[A-Za-z0-9_-]{43}$/);
    expect(page.html).toContain("Copy them now: this page is the only time they are shown.");
    expect(page.html).toContain('data-copy="access-token"');
    expect(page.html).toContain('data-copy="rotate-key"');

    expect((await listContacts(token)).status).toBe(200);
    expect((await listFields(token)).status).toBe(200);
    expectError(await api("GET", "/settings", { token }), 403, "Token missing required scope: settings", "insufficient_scope");

    // Never shown again: neither the list nor the key's own page holds a secret.
    for (const path of [KEYS_PATH, keyPath(keyId)]) {
      const { html } = await browse("GET", path, { cookie: session.cookie });
      expect(html).toContain("CRM sync");
      expect(html).not.toContain(token);
      expect(html).not.toContain(rotateKey);
    }
  });

  it("lists name, scopes, created, expires, last used and status, newest first", async () => {
    const session = await signIn();
    const { keyId } = await createKeyOnPage(session, "Listed", ["contacts", "fields"]);
    const keys = await admin("GET", `/agencies/${session.agencyUuid}/keys`);
    const record = keys.body.keys.find((k: { key_uuid: string }) => k.key_uuid === keyId);
    const { html } = await browse("GET", KEYS_PATH, { cookie: session.cookie });
    const row = new RegExp(`<tr data-key="${keyId}">([\\s\\S]*?)</tr>`).exec(html)?.[1];
    expect(row).toBeDefined();
    const cells = [...row!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map(([, cell]) => cell!.replace(/<[^>]+>/g, ""));
    const at = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
    expect(cells).toEqual(["Listed", "contacts, fields", at(record.created_at), at(record.expires_at), "never", "active"]);
    expect(html.indexOf(`data-key="${keyId}"`)).toBeLessThan(html.indexOf(`data-key="${session.keyUuid}"`));
  });

  it("offers never expiring only to a calendar-only key, enforced as the operator API does", async () => {
    const session = await signIn();
    for (const scopes of [["contacts"], ["calendar", "contacts"], ["*"]]) {
      const page = await submit(session, KEYS_PATH, { name: "forever", scopes, never_expires: "on" });
      expect(page.status).toBe(400);
      // In the dashboard's words, beside the box, which comes back unchecked (and shown); the rest as it was sent.
      expect(page.html).toContain('<p class="error" role="alert" id="never-expires-error">Only calendar-only keys can never expire</p>');
      expect(page.html).not.toContain("expires: false");
      expect(page.html).not.toContain('id="form-error"');
      expect(page.html).toContain('<div class="check never-expires refused">');
      expect(/<input[^>]*id="never-expires"[^>]*>/.exec(page.html)?.[0]).not.toContain("checked");
      expect(page.html).toContain('value="forever"');
    }
    const { keyId, token } = await createKeyOnPage(session, "Voice line", ["calendar"], { never_expires: "on" });
    const keys = await admin("GET", `/agencies/${session.agencyUuid}/keys`);
    expect(keys.body.keys.find((k: { key_uuid: string }) => k.key_uuid === keyId)).toMatchObject({ scopes: ["calendar"], expires_at: null });
    // The token is accepted (not 401) and holds calendar alone: hours need appointments.
    expectError(await api("GET", "/calendar/hours", { token }), 403, "Token missing required scope: appointments", "insufficient_scope");
    expect(keys.body.keys.filter((k: { name: string }) => k.name === "forever")).toEqual([]);
    // The operator API keeps its own wording of the rule.
    expectError(
      await admin("POST", `/agencies/${session.agencyUuid}/keys`, { name: "forever", scopes: ["contacts"], expires: false }),
      400,
      "expires: false is only allowed for keys whose only scope is calendar",
      "validation_error",
    );
  });

  it.each([
    ["no scopes", { name: "No scopes" }, "scopes must list at least one scope"],
    ["a blank name", { name: "  ", scopes: ["contacts"] }, "name is required"],
    ["an unknown scope", { name: "Odd", scopes: ["everything"] }, /^scopes\.0: /],
    ["a name over 100 characters", { name: "x".repeat(101), scopes: ["contacts"] }, /^name: /],
  ])("refuses %s with the operator API's message", async (_name, fields, message) => {
    const session = await signIn();
    const page = await submit(session, KEYS_PATH, fields as Record<string, string | string[]>);
    expect(page.status).toBe(400);
    const shown = /role="alert" id="form-error">([^<]*)<\/p>/.exec(page.html)?.[1];
    if (typeof message === "string") expect(shown).toBe(escaped(message));
    else expect(shown).toMatch(message);
    const keys = await admin("GET", `/agencies/${session.agencyUuid}/keys`);
    expect(keys.body.keys).toHaveLength(1);
  });
});

describe("Integrations > API keys: changes take effect on the next Partner API request", () => {
  it("edits scopes and name: the next request sees the new scopes", async () => {
    const session = await signIn();
    const { keyId, token } = await createKeyOnPage(session, "Editable", ["contacts"]);
    expect((await listContacts(token)).status).toBe(200);
    expectError(await listFields(token), 403, "Token missing required scope: fields", "insufficient_scope");

    const saved = await submit(session, keyPath(keyId), { name: "Edited", scopes: ["fields"] });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`${keyPath(keyId)}?notice=saved`);
    expect((await listFields(token)).status).toBe(200);
    expectError(await listContacts(token), 403, "Token missing required scope: contacts", "insufficient_scope");

    const page = await browse("GET", saved.location!, { cookie: session.cookie });
    expect(page.html).toContain("Changes saved. The next request made with this key sees them.");
    expect(page.html).toContain("API key “Edited”");
  });

  it("saves a form sent unchanged without an audit entry, from the dashboard and the operator API", async () => {
    const session = await signIn();
    const { keyId, token } = await createKeyOnPage(session, "Steady", ["contacts", "fields"]);
    const auditBefore = await auditEntries(session.agencyUuid);
    const saved = await submit(session, keyPath(keyId), { name: "Steady", scopes: ["contacts", "fields"] });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`${keyPath(keyId)}?notice=saved`);
    const operator = await admin("PATCH", `/keys/${keyId}`, { name: "Steady", scopes: ["contacts", "fields"] });
    expect(operator.status).toBe(200);
    expect(operator.body.key).toMatchObject({ name: "Steady", scopes: ["contacts", "fields"] });
    expect(await auditEntries(session.agencyUuid)).toEqual(auditBefore);
    expect((await listContacts(token)).status).toBe(200);

    // A real change is still recorded, with what changed.
    expect((await submit(session, keyPath(keyId), { name: "Steady", scopes: ["contacts"] })).status).toBe(303);
    expect((await auditEntries(session.agencyUuid))[0]).toMatchObject({
      action: "key.updated",
      detail: { name: "Steady", changes: { scopes: { from: ["contacts", "fields"], to: ["contacts"] } } },
    });
  });

  it("keeps a never-expiring key calendar-only when its scopes are edited", async () => {
    const session = await signIn();
    const { keyId } = await createKeyOnPage(session, "Voice", ["calendar"], { never_expires: "on" });
    const page = await submit(session, keyPath(keyId), { name: "Voice", scopes: ["calendar", "contacts"] });
    expect(page.status).toBe(400);
    expect(page.html).toContain(">A key that never expires may only hold the calendar scope</p>");
    const operator = await admin("PATCH", `/keys/${keyId}`, { scopes: ["contacts"] });
    expectError(operator, 400, "A key that never expires may only hold the calendar scope", "validation_error");
  });

  it("revokes only after the confirmation step: the next request is 401", async () => {
    const session = await signIn();
    const { keyId, token } = await createKeyOnPage(session, "Doomed", ["contacts"]);
    const confirm = await browse("GET", `${keyPath(keyId)}/revoke`, { cookie: session.cookie });
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain("Every request made with this key&#39;s access token will fail with 401 from the next one on.");
    // Showing the confirmation changes nothing.
    expect((await listContacts(token)).status).toBe(200);

    const revoked = await submit(session, `${keyPath(keyId)}/revoke`);
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe(`${keyPath(keyId)}?notice=revoked`);
    expectError(await listContacts(token), 401, "Invalid or missing token", "invalid_token");
    const { html } = await browse("GET", KEYS_PATH, { cookie: session.cookie });
    expect(new RegExp(`<tr data-key="${keyId}">[\\s\\S]*?status-revoked">revoked</td>`).test(html)).toBe(true);
  });

  it("rotates secrets: the old token is 401 at once, the new one works", async () => {
    const session = await signIn();
    const { keyId, token, rotateKey } = await createKeyOnPage(session, "Rotated", ["contacts"]);
    const page = await submit(session, `${keyPath(keyId)}/rotate-secrets`);
    expect(page.status).toBe(200);
    const newToken = inputValue(page.html, "access-token");
    const newRotateKey = inputValue(page.html, "rotate-key");
    expect(newToken).not.toBe(token);
    expectError(await listContacts(token), 401, "Invalid or missing token", "invalid_token");
    expect((await listContacts(newToken)).status).toBe(200);
    expectError(await renew(token, rotateKey), 401, "Invalid access token or rotate key");
    expect((await renew(newToken, newRotateKey)).status).toBe(200);
  });

  it("regenerates the rotate key: renewing with the old one fails, with the new one works, the token keeps working", async () => {
    const session = await signIn();
    const { keyId, token, rotateKey } = await createKeyOnPage(session, "Regenerated", ["contacts"]);
    const page = await submit(session, `${keyPath(keyId)}/regenerate-rotate-key`);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('id="access-token"');
    const newRotateKey = inputValue(page.html, "rotate-key");
    expect((await listContacts(token)).status).toBe(200);
    expectError(await renew(token, rotateKey), 401, "Invalid access token or rotate key");
    const renewed = await renew(token, newRotateKey);
    expect(renewed.status).toBe(200);
    expect((await listContacts(renewed.body.access_token)).status).toBe(200);
  });

  it("shows a replayed rotate key among the key's security events", async () => {
    const session = await signIn();
    const { keyId, token, rotateKey } = await createKeyOnPage(session, "Watched", ["contacts"]);
    expect((await renew(token, rotateKey)).status).toBe(200);
    expectError(await renew(token, rotateKey), 401, "Invalid access token or rotate key");
    const { html } = await browse("GET", keyPath(keyId), { cookie: session.cookie });
    expect(html).toContain("A rotate key that was already used to renew was presented again (someone may hold an old copy).");
  });

  it("refuses to rotate or regenerate a revoked key, with the operator API's message", async () => {
    const session = await signIn();
    const { keyId } = await createKeyOnPage(session, "Gone", ["contacts"]);
    await submit(session, `${keyPath(keyId)}/revoke`);
    const rotate = await submit(session, `${keyPath(keyId)}/rotate-secrets`);
    expect(rotate.status).toBe(400);
    expect(rotate.html).toContain(">A revoked key cannot be rotated</p>");
    const regenerate = await submit(session, `${keyPath(keyId)}/regenerate-rotate-key`);
    expect(regenerate.status).toBe(400);
    expect(regenerate.html).toContain(">A revoked key cannot be changed</p>");
  });

  it("refuses to edit a revoked key with the operator API's message, changing and recording nothing", async () => {
    const session = await signIn();
    const { keyId } = await createKeyOnPage(session, "Gone", ["contacts"]);
    await submit(session, `${keyPath(keyId)}/revoke`);
    const auditBefore = await auditEntries(session.agencyUuid);
    const page = await submit(session, keyPath(keyId), { name: "Revived", scopes: ["fields"] });
    expect(page.status).toBe(400);
    expect(page.html).toContain('role="alert" id="form-error">A revoked key cannot be changed</p>');
    const keys = await admin("GET", `/agencies/${session.agencyUuid}/keys`);
    expect(keys.body.keys.find((k: { key_uuid: string }) => k.key_uuid === keyId)).toMatchObject({ name: "Gone", scopes: ["contacts"] });
    expect(await auditEntries(session.agencyUuid)).toEqual(auditBefore);
  });
});

describe("Integrations > API keys: another agency's key", () => {
  it("is the 404 page on every key URL and form, and is left untouched", async () => {
    const session = await signIn();
    const other = await setupAgency("Other Agency");
    const pages = [
      await browse("GET", keyPath(other.keyUuid), { cookie: session.cookie }),
      await browse("GET", `${keyPath(other.keyUuid)}/revoke`, { cookie: session.cookie }),
      await submit(session, keyPath(other.keyUuid), { name: "Hijacked", scopes: ["contacts"] }),
      await submit(session, `${keyPath(other.keyUuid)}/revoke`),
      await submit(session, `${keyPath(other.keyUuid)}/rotate-secrets`),
      await submit(session, `${keyPath(other.keyUuid)}/regenerate-rotate-key`),
      await browse("GET", keyPath(UNKNOWN_UUID), { cookie: session.cookie }),
      await browse("GET", keyPath("not-a-uuid"), { cookie: session.cookie }),
    ];
    for (const page of pages) {
      expect(page.status).toBe(404);
      expect(page.html).toContain("There is nothing here. It may belong to another agency, or it was removed.");
    }
    const keys = await admin("GET", `/agencies/${other.agencyUuid}/keys`);
    expect(keys.body.keys[0]).toMatchObject({ name: "test key", scopes: ["*"], revoked_at: null });
    expect((await listContacts(other.token)).status).toBe(200);
    expect((await renew(other.token, other.rotateKey)).status).toBe(200);
    expect(await auditEntries(other.agencyUuid)).toHaveLength(1);
  });
});

describe("audit entries of key actions", () => {
  it("records each dashboard action with the acting member, and shows who did what", async () => {
    const session = await signIn({ role: "admin" });
    const { keyId } = await createKeyOnPage(session, "Audited", ["contacts"]);
    await submit(session, keyPath(keyId), { name: "Audited", scopes: ["contacts", "fields"] });
    await submit(session, `${keyPath(keyId)}/rotate-secrets`);
    await submit(session, `${keyPath(keyId)}/regenerate-rotate-key`);
    await submit(session, `${keyPath(keyId)}/revoke`);
    // Revoking again changes nothing, so records nothing.
    await submit(session, `${keyPath(keyId)}/revoke`);

    const entries = (await auditEntries(session.agencyUuid)).filter((e) => e.target_id === keyId);
    expect(entries.map((e) => e.action)).toEqual(["key.revoked", "key.rotate_key_regenerated", "key.secrets_rotated", "key.updated", "key.created"]);
    for (const entry of entries) expect(entry).toMatchObject({ actor_type: "member", actor_id: session.memberUuid, target_type: "api_key" });
    expect(entries[3]!.detail).toEqual({ name: "Audited", changes: { scopes: { from: ["contacts"], to: ["contacts", "fields"] } } });

    const { html } = await browse("GET", "/dashboard/audit-log", { cookie: session.cookie });
    const row = /<tr data-action="key.updated">([\s\S]*?)<\/tr>/.exec(html)?.[1] ?? "";
    const cells = [...row.matchAll(/<td>([\s\S]*?)<\/td>/g)].map(([, cell]) => cell!.replace(/<[^>]+>/g, ""));
    expect(cells.slice(1)).toEqual([session.memberName, "edited an API key", "API key “Audited”", "scopes: contacts → contacts, fields"]);
  });

  it("records operator API key actions with the actor operator, from the same implementation", async () => {
    const session = await signIn();
    const created = await admin("POST", `/agencies/${session.agencyUuid}/keys`, { name: "By operator", scopes: ["contacts"] });
    const keyId = created.body.key.key_uuid;
    await admin("PATCH", `/keys/${keyId}`, { scopes: ["fields"] });
    await admin("POST", `/keys/${keyId}/rotate-secrets`);
    await admin("POST", `/keys/${keyId}/regenerate-rotate-key`);
    await admin("POST", `/keys/${keyId}/revoke`);
    const entries = (await auditEntries(session.agencyUuid)).filter((e) => e.target_id === keyId);
    expect(entries.map((e) => [e.actor_type, e.actor_id, e.action])).toEqual([
      ["operator", null, "key.revoked"],
      ["operator", null, "key.rotate_key_regenerated"],
      ["operator", null, "key.secrets_rotated"],
      ["operator", null, "key.updated"],
      ["operator", null, "key.created"],
    ]);
    const { html } = await browse("GET", "/dashboard/audit-log", { cookie: session.cookie });
    expect(html).toMatch(/<tr data-action="key.revoked"><td>[\s\S]*?<\/td><td>Platform operator<\/td><td>revoked an API key<\/td><td>API key “By operator”<\/td>/);
  });

  it("writes nothing to the log when an operator action fails", async () => {
    const { agencyUuid } = await setupAgency();
    const before = await auditEntries(agencyUuid);
    expectError(await admin("POST", `/agencies/${agencyUuid}/keys`, { name: "forever", scopes: ["contacts"], expires: false }), 400);
    const legacy = await admin("POST", `/agencies/${agencyUuid}/legacy-calendar-tokens`);
    expectError(await admin("POST", `/keys/${legacy.body.key.key_uuid}/rotate-secrets`), 400, "Legacy calendar tokens have no secrets to rotate; revoke and replace them");
    const after = await auditEntries(agencyUuid);
    expect(after.slice(1)).toEqual(before);
    expect(after[0]).toMatchObject({ action: "key.created", detail: { name: "Legacy calendar token" } });
  });
});

describe("Integrations > API keys: escaping", () => {
  it("shows a key name with markup as text, escaped, on every page that names it", async () => {
    const session = await signIn();
    const name = `<script>alert("x")</script>'&`;
    const { keyId, page: created } = await createKeyOnPage(session, name, ["contacts"]);
    const shownEscaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;";
    const pages = [
      created,
      await browse("GET", KEYS_PATH, { cookie: session.cookie }),
      await browse("GET", keyPath(keyId), { cookie: session.cookie }),
      await browse("GET", `${keyPath(keyId)}/revoke`, { cookie: session.cookie }),
      await browse("GET", "/dashboard/audit-log", { cookie: session.cookie }),
    ];
    for (const page of pages) {
      expect(page.status).toBeLessThan(300);
      expect(page.html).toContain(shownEscaped);
      expect(page.html).not.toContain("<script>");
    }
    // Refused and echoed back into the form: still escaped.
    const refused = await submit(session, KEYS_PATH, { name, scopes: ["nope"] });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain(`value="${escaped(name)}"`);
    expect(refused.html).not.toContain("<script>");
  });
});
