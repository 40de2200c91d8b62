import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, api } from "../helpers/http";
import { createAgency, createKey } from "../helpers/factories";
import { restoreClock, setClock } from "../helpers/clock";
import { browse, KEYS_PATH, signIn } from "../helpers/dashboard";
import { dbOfRecord } from "../helpers/shards";

const lastUsedOf = async (keyUuid: string) =>
  (await (await dbOfRecord(keyUuid)).prepare("SELECT last_used_at FROM api_keys WHERE id = ?").bind(keyUuid).first<{ last_used_at: string | null }>())?.last_used_at;

/** The write happens after the response (write-behind): give it time to land, or to show it never does. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

afterEach(() => restoreClock());

describe("last_used_at", () => {
  it("is written behind at most once a minute per key: two requests within a minute make one write, a minute later it moves", async () => {
    setClock("2026-11-21T10:00:00.000Z");
    const agencyUuid = await createAgency();
    const { token, keyUuid } = await createKey(agencyUuid, { scopes: ["contacts"] });
    expect(await lastUsedOf(keyUuid)).toBeNull();

    expect((await api("GET", "/contacts", { token })).status).toBe(200);
    await vi.waitFor(async () => expect(await lastUsedOf(keyUuid)).toBe("2026-11-21T10:00:00.000Z"), { timeout: 5_000, interval: 20 });

    // Absolute times: vi.waitFor moves a faked clock forward by its interval on every check.
    setClock("2026-11-21T10:00:59.999Z");
    expect((await api("GET", "/contacts", { token })).status).toBe(200);
    await settle();
    expect(await lastUsedOf(keyUuid)).toBe("2026-11-21T10:00:00.000Z");

    setClock("2026-11-21T10:01:00.000Z");
    expect((await api("GET", "/contacts", { token })).status).toBe(200);
    await vi.waitFor(async () => expect(await lastUsedOf(keyUuid)).toBe("2026-11-21T10:01:00.000Z"), { timeout: 5_000, interval: 20 });
  });

  it("is not touched by a refused request", async () => {
    const agencyUuid = await createAgency();
    const { token, keyUuid } = await createKey(agencyUuid, { scopes: ["contacts"] });
    expect((await api("GET", "/settings", { token })).status).toBe(403);
    expect((await api("GET", "/contacts", { token: `${token.slice(0, -1)}x` })).status).toBe(401);
    await settle();
    expect(await lastUsedOf(keyUuid)).toBeNull();
  });

  it("is shown on the keys page and in the operator API's key records", async () => {
    setClock("2026-11-21T11:30:00.000Z");
    const session = await signIn();
    const { token, keyUuid } = await createKey(session.agencyUuid, { scopes: ["contacts"], name: "Used" });
    expect((await api("GET", "/contacts", { token })).status).toBe(200);
    await vi.waitFor(async () => expect(await lastUsedOf(keyUuid)).toBe("2026-11-21T11:30:00.000Z"), { timeout: 5_000, interval: 20 });

    const keys = await admin("GET", `/agencies/${session.agencyUuid}/keys`);
    expect(keys.body.keys.find((k: { key_uuid: string }) => k.key_uuid === keyUuid).last_used_at).toBe("2026-11-21T11:30:00.000Z");
    const { html } = await browse("GET", KEYS_PATH, { cookie: session.cookie });
    const row = new RegExp(`<tr data-key="${keyUuid}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? "";
    const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, cell]) => cell);
    expect(cells[3]).toBe('<time datetime="2026-11-21T11:30:00.000Z">2026-11-21 11:30 UTC</time>');
  });
});
