import { beforeAll, describe, expect, it } from "vitest";
import { admin, ADMIN_TOKEN, call, expectError, type ApiResponse } from "../helpers/http";
import { operationsOf, type Json, type Operation } from "../helpers/openapi-doc";

/**
 * The operator API refuses a query parameter its route does not name, as the Partner API does
 * (adminRoute makes each route's query schema strict, src/lib/strict-query.ts): every
 * operation of its own document, and the document itself.
 */

function expectUnknownQuery(res: ApiResponse<any>, name: string) {
  expectError(res, 400, `Unknown query parameter: ${name}`, "validation_error");
  expect(res.body.details[0]).toEqual({ field: name, message: `Unknown query parameter: ${name}` });
}

let operations: Operation[] = [];
beforeAll(async () => {
  const res = await admin("GET", "/openapi.json");
  expect(res.status).toBe(200);
  operations = operationsOf(res.body as Json);
});

describe("the operator API", () => {
  it("refuses an unknown query parameter on every operation of its document", async () => {
    expect(operations.length).toBeGreaterThanOrEqual(20);
    for (const o of operations) {
      const path = o.path.replace(/\{[^}]+\}/g, () => crypto.randomUUID());
      const json = o.op.requestBody?.content?.["application/json"] !== undefined;
      const res = await call(o.method, `/admin/v1${path}?zz_unknown=1`, { token: ADMIN_TOKEN, ...(json ? { body: {} } : {}) });
      expect(res.status, `${o.key}: ${JSON.stringify(res.body)}`).toBe(400);
      expectUnknownQuery(res, "zz_unknown");
    }
  });

  it("names a typo of a list's filter", async () => {
    const res = await admin("GET", "/agencies?limt=5");
    expectUnknownQuery(res, "limt");
  });

  it("refuses one on its own document", async () => {
    const res = await admin("GET", "/openapi.json?format=yaml");
    expectUnknownQuery(res, "format");
  });

  it("still asks for the operator token first", async () => {
    const res = await call("GET", "/admin/v1/agencies?limt=5");
    expect(res.status).toBe(401);
  });
});
