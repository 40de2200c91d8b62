import { describe, expect, it } from "vitest";
import { api } from "./helpers/http";
import { setupAgency } from "./helpers/factories";

describe("smoke", () => {
  it("serves the document and authenticates a fresh key", async () => {
    const doc = await api("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.0.3");
    const agency = await setupAgency();
    const res = await api("POST", "/auth/token/renew", { body: { access_token: agency.token, rotate_key: agency.rotateKey } });
    expect(res.status).toBe(200);
  });
});
