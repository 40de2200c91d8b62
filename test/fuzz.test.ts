import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildPartnerApi } from "@/app";
import { call, uniqueIp } from "./helpers/http";
import { createAgency, createKey } from "./helpers/factories";
import { isPublic, operationsOf, resolveSchema } from "./helpers/openapi-doc";

/**
 * Property: whatever a client sends to any operation of the generated document, the Worker
 * answers below 500, with a JSON body, and every non-2xx body is the error envelope
 * (docs/decisions/response-conventions.md).
 *
 * Operations come from the generated document (the same one GET /openapi.json serves, see
 * openapi.test.ts), so a route added later is fuzzed without changing this file.
 *
 * Runs are deterministic: each operation's seed derives from FUZZ_SEED and its name. On a
 * failure fast-check prints the seed and the counterexample path; set FUZZ_SEED here (and
 * pass `path` in `fc.assert`'s options) to replay it. Change FUZZ_SEED to explore further.
 */
const FUZZ_SEED = 20_261_121;
const RUNS_PER_OPERATION = 40;
const TEST_TIMEOUT_MS = 60_000;

type Json = Record<string, any>;
const METHODS = ["get", "put", "post", "delete", "patch"] as const;

const doc = buildPartnerApi().openApiDocument() as Json;

interface Operation {
  method: string;
  path: string;
  key: string;
  op: Json;
  isPublic: boolean;
}

const operations: Operation[] = operationsOf(doc).map((o) => ({ ...o, isPublic: isPublic(o.op) }));

const resolve = (schema: Json | undefined): Json => resolveSchema(doc, schema);

/** Path parameters whose records seedRecords() must create, or the fuzz would only reach 404s. */
const SEEDED_IDS = ["contact_uuid", "field_uuid", "path_uuid"];

/** 32-bit FNV-1a, so each operation gets its own stable seed. */
function seedFor(name: string): number {
  let hash = 0x811c9dc5;
  for (const ch of name) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193);
  return (hash ^ FUZZ_SEED) | 0;
}

const HUGE = "x".repeat(10_000);

// ---------------------------------------------------------------------------------------
// Values: plausible ones from the schema, and hostile ones.
// ---------------------------------------------------------------------------------------

/** A value the schema would plausibly accept (or nearly): examples, enums, right types. */
function plausible(schemaIn: Json | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(schemaIn);
  const choices: fc.Arbitrary<unknown>[] = [];
  if (schema.example !== undefined) choices.push(fc.constant(schema.example));
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.oneof(fc.constantFrom(...schema.enum), ...choices);
  const union = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (union?.length && depth < 4) return fc.oneof(...union.map((s) => plausible(s, depth + 1)), ...choices);
  switch (schema.type) {
    case "string":
      if (schema.format === "uuid") choices.push(fc.uuid());
      else if (schema.format === "date") choices.push(fc.constantFrom("2026-12-01", "2026-12-30", "2026-02-30"));
      else if (schema.format === "date-time") choices.push(fc.constant(new Date(Date.UTC(2026, 11, 1)).toISOString()));
      else if (schema.format === "email") choices.push(fc.emailAddress());
      else choices.push(fc.string({ maxLength: 24 }));
      if (typeof schema.maxLength === "number") {
        // Boundary values: the longest accepted string, in one-byte, multi-byte and
        // special (SQL LIKE, escape) characters.
        const max = Math.min(schema.maxLength, 20_000);
        choices.push(
          fc.constantFrom("a".repeat(max), "é".repeat(max), "%".repeat(max), "_\\".repeat(max).slice(0, max), "😀".repeat(max / 2)),
          fc.string({ minLength: Math.max(0, max - 3), maxLength: max }),
        );
      }
      break;
    case "integer":
      choices.push(fc.integer({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 200, 1_000_000) }));
      break;
    case "number":
      choices.push(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }));
      break;
    case "boolean":
      choices.push(fc.boolean());
      break;
    case "array":
      if (depth < 4) choices.push(fc.array(plausible(schema.items, depth + 1), { maxLength: 3 }));
      break;
    case "object":
    default:
      if (schema.properties && depth < 4) choices.push(objectFrom(schema, depth + 1));
  }
  return choices.length > 0 ? fc.oneof(...choices) : fc.jsonValue({ maxDepth: 2 });
}

function objectFrom(schema: Json, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const model = Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, plausible(s, depth)]));
  return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k: string) => k in model) });
}

/** Values of the wrong type, or sizes and shapes no validator expects. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    HUGE,
    "",
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    [],
    {},
    ["a", "b"],
    { nested: { deeper: [1, 2, 3] } },
    "\u0000",
    "2026-02-30",
    "../../etc/passwd",
    "'; DROP TABLE contacts; --",
    "ZALGƠ̸̢͖̝͓̩͚͎̜͇̬̞̮̮̗̘̭͗̊̊̈́͒̂̌̍̎̓̔̀̑̕͜͝͝",
    "\ud83d\ude00".repeat(3000),
    "\ud800",
  ),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(fc.string(), { minLength: 1, maxLength: 5 }),
);

// ---------------------------------------------------------------------------------------
// Requests.
// ---------------------------------------------------------------------------------------

/** Ids of records the fuzzed agency holds, by field name (`contact_uuid` -> [...]). */
type Known = Map<string, string[]>;

interface FuzzRequest {
  path: string;
  query: [string, string][];
  auth: "valid" | "missing" | "bogus";
  idempotencyKey?: string;
  contentType?: string;
  body?: string;
}

const rawPathSegment = fc.oneof(
  { weight: 2, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      "..",
      ".",
      "%00",
      "%",
      "%zz",
      "%E0%A4%A",
      "%2e%2e",
      "%2F",
      "a%2Fb",
      "null",
      "undefined",
      "0",
      "-1",
      "{contact_uuid}",
      "%20",
      "%F0%9F%98%80",
      "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f7",
      "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70x",
      "3f1c2a9e8b4d4c6e9a1f2b3c4d5e6f70",
      "00000000-0000-0000-0000-000000000000",
      "%3Cscript%3E",
      "x".repeat(5_000),
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 20 }).map(encodeURIComponent) },
);

/** Path parameters: real record ids when the agency has some (so handlers run), else hostile values. */
function pathArb(path: string, known: Known): fc.Arbitrary<string> {
  const names = path.match(/\{[^}]+\}/g) ?? [];
  if (names.length === 0) return fc.constant(path);
  const segment = (name: string) => {
    const ids = known.get(name.slice(1, -1)) ?? [];
    return ids.length > 0 ? fc.oneof({ weight: 1, arbitrary: rawPathSegment }, { weight: 1, arbitrary: fc.constantFrom(...ids) }) : rawPathSegment;
  };
  return fc.tuple(...names.map(segment)).map((values) => {
    let filled = path;
    names.forEach((name, i) => (filled = filled.replace(name, values[i]!)));
    return filled;
  });
}

const queryString = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value) ?? "");

function queryArb(op: Json): fc.Arbitrary<[string, string][]> {
  const declared = ((op.parameters ?? []) as Json[]).filter((p) => p.in === "query");
  const perParam = declared.map((p) =>
    fc
      .oneof(
        { weight: 2, arbitrary: fc.constant([] as string[]) },
        { weight: 3, arbitrary: plausible(p.schema).map((v) => [queryString(v)]) },
        { weight: 3, arbitrary: hostile.map((v) => [queryString(v)]) },
        { weight: 1, arbitrary: fc.array(plausible(p.schema).map(queryString), { minLength: 2, maxLength: 3 }) },
      )
      .map((values) => values.map((v) => [p.name as string, v] as [string, string])),
  );
  // Parameters the operation may not take: each is a 400 naming it before the handler runs,
  // so they come in one request of four, and the rest go deeper.
  const extra = fc.oneof(
    { weight: 3, arbitrary: fc.constant([] as [string, string][]) },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.tuple(
          fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("page", "limit", "q", "__proto__", "constructor", "[]", "a[b]")),
          hostile.map(queryString),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    },
  );
  return fc.tuple(fc.tuple(...perParam), extra).map(([params, more]) => [...params.flat(), ...more]);
}

const malformedJson = fc.oneof(
  fc.constantFrom(
    "{",
    "}",
    '{"a":',
    "[1,2",
    "nul",
    "{'a':1}",
    '{"a":1}}',
    '{"a":1,}',
    "\u0000",
    "\ufeff{}",
    "NaN",
    "undefined",
    `${"[".repeat(5_000)}${"]".repeat(5_000)}`,
    `{"a":${"[".repeat(3_000)}`,
  ),
  fc.string({ maxLength: 60 }),
);

const jsonText = (value: unknown) => JSON.stringify(value) ?? "null";

const RAW_JSON_VALUES = [
  "1e400",
  "-1e400",
  "-0",
  "123456789012345678901234567890",
  "0.1000000000000000000000001",
  '"\\ud800"',
  '"\\u0000"',
  '{"__proto__":{"polluted":true}}',
  '{"a":1,"a":2}',
  '["\\udfff", null]',
];

function bodyArb(op: Json): fc.Arbitrary<string | undefined> {
  const media = op.requestBody?.content?.["application/json"];
  const schema = resolve(media?.schema);
  const base = schema.example ?? media?.example;
  const names = Object.keys(schema.properties ?? {});
  const plausibleBody = plausible(schema);

  const variants: fc.Arbitrary<string | undefined>[] = [
    fc.constant(undefined),
    fc.constant(""),
    plausibleBody.map(jsonText),
    fc.jsonValue({ maxDepth: 4 }).map(jsonText),
    fc.anything({ maxDepth: 3 }).map((v) => {
      try {
        return jsonText(v);
      } catch {
        return "{}";
      }
    }),
    malformedJson,
  ];
  if (names.length > 0) {
    // One property of a plausible object replaced by a wrong type or an oversized string,
    // removed, or joined by an unknown one.
    variants.push(
      fc
        .tuple(base === undefined ? plausibleBody : fc.oneof(fc.constant(base), plausibleBody), fc.constantFrom(...names), hostile)
        .map(([object, name, value]) => jsonText({ ...(object as object), [name]: value })),
      fc
        .tuple(fc.constant(base ?? {}), fc.constantFrom(...names))
        .map(([object, name]) => {
          const copy = { ...(object as Record<string, unknown>) };
          delete copy[name];
          return jsonText(copy);
        }),
      fc
        .tuple(fc.constant(base ?? {}), fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("__proto__", "constructor")), hostile)
        .map(([object, name, value]) => jsonText({ ...(object as object), [name]: value })),
      // JSON that JavaScript cannot round-trip: huge, negative-zero and over-precise numbers,
      // lone surrogates, and a duplicated key.
      fc
        .tuple(fc.constant(base ?? {}), fc.constantFrom(...names), fc.constantFrom(...RAW_JSON_VALUES))
        .map(([object, name, raw]) => {
          const text = jsonText({ ...(object as object), [name]: "\u0000RAW" });
          return text.replace('"\\u0000RAW"', raw);
        }),
    );
  }
  return fc.oneof(...variants);
}

const contentTypeArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant("application/json") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=xyz",
      "application/json; charset=utf-8",
      "application/json; charset=latin1",
      "application/jsonx",
      "APPLICATION/JSON",
      "application/merge-patch+json",
      "*/*",
    ),
  },
);

const idempotencyKeyArb = fc.option(
  fc.oneof(fc.uuid(), fc.constantFrom("", " ", "k".repeat(256), "same-key"), fc.stringMatching(/^[\x21-\x7e]{1,40}$/)),
  { freq: 2 },
);

function requestArb(operation: Operation, known: Known): fc.Arbitrary<FuzzRequest> {
  // fetch() refuses a GET body; an operation without a documented body still gets stray ones.
  const body =
    operation.method === "GET"
      ? fc.constant(undefined)
      : operation.op.requestBody
        ? bodyArb(operation.op)
        : fc.option(bodyArb({}), { freq: 3 }).map((v) => v ?? undefined);
  return fc.record({
    path: pathArb(operation.path, known),
    query: queryArb(operation.op),
    auth: fc.constantFrom("valid", "valid", "valid", "valid", "valid", "valid", "valid", "valid", "missing", "bogus"),
    idempotencyKey: idempotencyKeyArb.map((v) => v ?? undefined),
    contentType: contentTypeArb,
    body,
  });
}

// ---------------------------------------------------------------------------------------
// The property.
// ---------------------------------------------------------------------------------------

async function send(operation: Operation, token: string, request: FuzzRequest) {
  const search = new URLSearchParams(request.query).toString();
  const headers: Record<string, string> = {};
  if (request.contentType && request.body !== undefined) headers["Content-Type"] = request.contentType;
  if (request.idempotencyKey !== undefined) headers["Idempotency-Key"] = request.idempotencyKey;
  const authToken = request.auth === "valid" ? token : request.auth === "bogus" ? "pa_not-a-real-token" : null;
  return call(operation.method, `/api/v2${request.path}${search ? `?${search}` : ""}`, {
    token: authToken,
    rawBody: request.body,
    headers,
    ip: uniqueIp(),
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function collectIds(value: unknown, known: Known) {
  if (Array.isArray(value)) return value.forEach((v) => collectIds(v, known));
  if (typeof value !== "object" || value === null) return;
  for (const [name, v] of Object.entries(value)) {
    if (name.endsWith("_uuid") && typeof v === "string" && UUID.test(v)) known.set(name, [...(known.get(name) ?? []), v]);
    else collectIds(v, known);
  }
}

/**
 * Gives the agency a few real records, so fuzzed requests reach handlers and repositories
 * rather than stopping at 404: every create operation of the document is sent its example
 * body (or, if that is refused, the example's required fields only), twice over so a
 * record that depends on another one (a contact's custom field) can be created second.
 */
async function seedRecords(token: string): Promise<Known> {
  const known: Known = new Map();
  const creates = operations.filter((o) => o.method === "POST" && !o.isPublic && !o.path.includes("{") && o.op.requestBody);
  for (let pass = 0; pass < 2; pass++) {
    for (const create of creates) {
      const media = create.op.requestBody.content?.["application/json"];
      const schema = resolve(media?.schema);
      const example = (media?.example ?? schema.example) as Record<string, unknown> | undefined;
      if (!example || typeof example !== "object") continue;
      const requiredOnly = Object.fromEntries(Object.entries(example).filter(([k]) => (schema.required ?? []).includes(k)));
      for (const body of [example, requiredOnly]) {
        const res = await call("POST", `/api/v2${create.path}`, { token, body });
        expectSound(res);
        if (res.status >= 200 && res.status < 300) {
          collectIds(res.body, known);
          break;
        }
      }
    }
  }
  for (const name of SEEDED_IDS) {
    expect(known.get(name)?.length ?? 0, `seedRecords() created no record with a ${name}: ${JSON.stringify([...known.keys()])}`).toBeGreaterThan(0);
  }
  return known;
}

function expectSound(res: Awaited<ReturnType<typeof call>>) {
  const shown = typeof res.body === "string" ? res.body.slice(0, 300) : JSON.stringify(res.body).slice(0, 300);
  expect(res.status, shown).toBeLessThan(500);
  expect(res.headers.get("Content-Type") ?? "", shown).toMatch(/^application\/json/);
  expect(typeof res.body === "object" && res.body !== null, `body is not JSON: ${shown}`).toBe(true);
  if (res.status < 200 || res.status >= 300) {
    const body = res.body as Json;
    expect(body.success, shown).toBe(false);
    expect(typeof body.error, shown).toBe("string");
    expect(typeof body.code, shown).toBe("string");
  }
}

describe("fuzzing every documented operation", () => {
  it("has operations to fuzz, and skips none of the document's", () => {
    expect(operations.length).toBeGreaterThanOrEqual(2);
    const all = Object.values(doc.paths as Record<string, Json>).flatMap((item) => Object.keys(item));
    expect(all.filter((m) => m !== "parameters" && !(METHODS as readonly string[]).includes(m))).toEqual([]);
  });

  it.each(operations)(
    "$key answers below 500 with JSON and the error envelope",
    async (operation) => {
      const agencyUuid = await createAgency(`Fuzz ${operation.key}`);
      // A huge multiplier so the rate limit never refuses a fuzzed request.
      const { token } = await createKey(agencyUuid, { scopes: ["*"], rate_limit_multiplier: 1000 });

      const known = await seedRecords(token);

      // Every property of the body, one by one: an oversized string, then wrong types.
      const schema = resolve(operation.op.requestBody?.content?.["application/json"]?.schema);
      const example = (schema.example ?? {}) as Record<string, unknown>;
      const path = operation.path.replace(/\{([^}]+)\}/g, (_m, name: string) => known.get(name)?.[0] ?? crypto.randomUUID());
      for (const name of Object.keys(schema.properties ?? {})) {
        for (const value of [HUGE, { wrong: "type" }, [1, 2], 12345, null]) {
          const res = await send(operation, token, {
            path,
            query: [],
            auth: "valid",
            contentType: "application/json",
            body: JSON.stringify({ ...example, [name]: value }),
          });
          expectSound(res);
        }
      }

      await fc.assert(
        fc.asyncProperty(requestArb(operation, known), async (request) => {
          expectSound(await send(operation, token, request));
        }),
        { numRuns: RUNS_PER_OPERATION, seed: seedFor(operation.key) },
      );
    },
    TEST_TIMEOUT_MS,
  );
});
