import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { api } from "../helpers/http";
import { setupAgency } from "../helpers/factories";
import { createEndpoint, stubReceiver, uniqueReceiver } from "../helpers/webhooks";
import { auditEntries, browse, inputValue, signIn, submit, WEBHOOKS_PATH, type SignedIn } from "../helpers/dashboard";
import { dbWith } from "../helpers/shards";

const NOT_FOUND = "There is nothing here. It may belong to another agency, or it was removed.";
const endpointPath = (id: string) => `${WEBHOOKS_PATH}/${id}`;

afterEach(() => vi.unstubAllGlobals());

/** Adds an endpoint on the page (expecting the 201 page); returns its id, URL and the secret shown once. */
async function addEndpoint(session: SignedIn, events: string[] = ["contact.created"]) {
  const url = uniqueReceiver();
  const page = await submit(session, WEBHOOKS_PATH, { url, events, description: "CRM" });
  expect(page.status, page.html).toBe(201);
  const listed = await api("GET", "/webhook-endpoints", { token: session.token });
  const endpoint = listed.body.webhook_endpoints.find((e: { url: string }) => e.url === url);
  return { id: endpoint.webhook_endpoint_uuid as string, url, secret: inputValue(page.html, "webhook-secret"), page };
}

const statusOf = async (session: SignedIn, id: string) => (await api("GET", `/webhook-endpoints/${id}`, { token: session.token })).body.webhook_endpoint.status;

describe("Integrations > Webhooks", () => {
  it("adds an endpoint through the Partner API's rules, showing its secret once", async () => {
    const session = await signIn();
    const { id, url, secret, page } = await addEndpoint(session, ["contact.created", "appointment.booked"]);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(page.html).toContain("Copy it now: this page is the only time it is shown.");
    const endpoint = (await api("GET", `/webhook-endpoints/${id}`, { token: session.token })).body.webhook_endpoint;
    expect(endpoint).toMatchObject({ url, events: ["contact.created", "appointment.booked"], status: "enabled", description: "CRM" });
    const { html } = await browse("GET", WEBHOOKS_PATH, { cookie: session.cookie });
    expect(html).toContain(`<h3 id="endpoint-${id}">${url}</h3>`);
    expect(html).not.toContain(secret);
  });

  it.each([
    ["an http URL", { url: "http://hooks.example.com/x", events: ["*"] }, "url must use https"],
    ["no events", { url: "https://hooks.example.com/x" }, 'events must be a list of event types (see the Events tag) or [&quot;*&quot;] for all of them'],
    ["no URL", { events: ["*"] }, "url is required"],
  ])("refuses %s with the Partner API's message", async (_name, fields, message) => {
    const session = await signIn();
    const page = await submit(session, WEBHOOKS_PATH, fields as Record<string, string | string[]>);
    expect(page.status).toBe(400);
    expect(/role="alert" id="form-error">([^<]*)<\/p>/.exec(page.html)?.[1]).toContain(message);
    expect((await api("GET", "/webhook-endpoints", { token: session.token })).body.webhook_endpoints).toEqual([]);
  });

  it("disables and enables an endpoint: the Partner API sees it at once", async () => {
    const session = await signIn();
    const { id } = await addEndpoint(session);
    const disabled = await submit(session, `${endpointPath(id)}/disable`);
    expect(disabled.status).toBe(303);
    expect(disabled.location).toBe(`${WEBHOOKS_PATH}?notice=disabled`);
    expect(await statusOf(session, id)).toBe("disabled");
    const page = await browse("GET", disabled.location!, { cookie: session.cookie });
    expect(page.html).toContain("The endpoint was disabled: it receives no events until it is enabled.");
    expect(page.html).toContain(`action="${endpointPath(id)}/enable"`);
    expect((await submit(session, `${endpointPath(id)}/enable`)).status).toBe(303);
    expect(await statusOf(session, id)).toBe("enabled");
  });

  it("sends a test event signed with the secret the page showed, and lists the delivery", async () => {
    const session = await signIn();
    const { id, url, secret } = await addEndpoint(session);
    const receiver = stubReceiver(url);
    const tested = await submit(session, `${endpointPath(id)}/test`);
    expect(tested.status).toBe(303);
    expect(tested.location).toBe(`${WEBHOOKS_PATH}?notice=tested`);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 10_000, interval: 50 });
    const [ping] = receiver.received;
    expect(new Webhook(secret).verify(ping!.body, ping!.headers)).toMatchObject({ type: "ping" });
    await vi.waitFor(
      async () => {
        const { html } = await browse("GET", WEBHOOKS_PATH, { cookie: session.cookie });
        expect(html).toContain("<td><code>ping</code></td><td>1</td><td>delivered (HTTP 200)</td>");
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it("rotates the secret: the new one, shown once, signs the next delivery", async () => {
    const session = await signIn();
    const { id, url, secret } = await addEndpoint(session);
    const rotated = await submit(session, `${endpointPath(id)}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const newSecret = inputValue(rotated.html, "webhook-secret");
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    const stored = await (await dbWith("webhook_endpoints", id)).prepare("SELECT secret, previous_secret FROM webhook_endpoints WHERE id = ?").bind(id).first();
    expect(stored).toEqual({ secret: newSecret, previous_secret: secret });

    const receiver = stubReceiver(url);
    await submit(session, `${endpointPath(id)}/test`);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 10_000, interval: 50 });
    expect(new Webhook(newSecret).verify(receiver.received[0]!.body, receiver.received[0]!.headers)).toMatchObject({ type: "ping" });
  });

  it("answers the 404 page for another agency's endpoint and leaves it untouched", async () => {
    const session = await signIn();
    const other = await setupAgency("Other Agency");
    const { endpoint } = await createEndpoint(other.token);
    const id = endpoint.webhook_endpoint_uuid;
    for (const action of ["disable", "enable", "test", "rotate-secret"]) {
      const page = await submit(session, `${endpointPath(id)}/${action}`);
      expect(page.status, action).toBe(404);
      expect(page.html).toContain(NOT_FOUND);
    }
    const malformed = await submit(session, `${endpointPath("not-a-uuid")}/disable`);
    expect(malformed.status).toBe(404);
    expect(malformed.html).toContain(NOT_FOUND);
    const db = await dbWith("webhook_endpoints", id);
    const after = await db.prepare("SELECT status, previous_secret FROM webhook_endpoints WHERE id = ?").bind(id).first();
    expect(after).toEqual({ status: "enabled", previous_secret: null });
    const deliveries = await db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?").bind(id).first<{ n: number }>();
    expect(deliveries?.n).toBe(0);
  });

  it("records every webhook action with the acting member; Partner API changes with the calling key", async () => {
    const session = await signIn({ role: "admin" });
    const { id, url } = await addEndpoint(session);
    const receiver = stubReceiver(url);
    await submit(session, `${endpointPath(id)}/disable`);
    await submit(session, `${endpointPath(id)}/enable`);
    await submit(session, `${endpointPath(id)}/test`);
    // The ping goes out after the response; wait for it, so no delivery outlives the stub.
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 10_000, interval: 50 });
    await submit(session, `${endpointPath(id)}/rotate-secret`);
    expect((await api("PATCH", `/webhook-endpoints/${id}`, { token: session.token, body: { events: ["*"] } })).status).toBe(200);

    const entries = (await auditEntries(session.agencyUuid)).filter((e) => e.target_id === id);
    expect(entries.map((e) => [e.actor_type, e.actor_id, e.action])).toEqual([
      ["api_key", session.keyUuid, "webhook_endpoint.updated"],
      ["member", session.memberUuid, "webhook_endpoint.secret_rotated"],
      ["member", session.memberUuid, "webhook_endpoint.tested"],
      ["member", session.memberUuid, "webhook_endpoint.enabled"],
      ["member", session.memberUuid, "webhook_endpoint.disabled"],
      ["member", session.memberUuid, "webhook_endpoint.created"],
    ]);
    expect(entries[0]!.detail).toEqual({ url, changes: { events: { from: ["contact.created"], to: ["*"] } } });

    const { html } = await browse("GET", "/dashboard/audit-log", { cookie: session.cookie });
    expect(html).toContain(`<td>${session.memberName}</td><td>disabled a webhook endpoint</td><td>Webhook endpoint “${url}”</td>`);
    expect(html).toContain(`<td>API key “test key”</td><td>edited a webhook endpoint</td><td>Webhook endpoint “${url}”</td><td>events: contact.created → *</td>`);
  });
});

describe("Integrations > Webhooks: escaping", () => {
  it("shows an endpoint description with markup as text, escaped", async () => {
    const session = await signIn();
    const description = `<script>alert("x")</script>'&`;
    await createEndpoint(session.token, { description });
    const { status, html } = await browse("GET", WEBHOOKS_PATH, { cookie: session.cookie });
    expect(status).toBe(200);
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;");
    expect(html).not.toContain("<script>");
  });
});
