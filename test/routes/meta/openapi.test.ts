import { beforeAll, describe, expect, it } from "vitest";
import { buildPartnerApi } from "@/app";
import { scopes as knownScopes, WILDCARD_SCOPE } from "@/lib/auth/scopes";
import { rateLimitRule } from "@/lib/rate-limits";
import { api, call } from "../../helpers/http";
import { operationsOf, type Json, type Operation } from "../../helpers/openapi-doc";

/**
 * The generated document is the contract: these checks walk every operation it contains,
 * so a route added later is held to the same rules without touching this file.
 */

/** The specification's endpoint table (docs/decisions/routes-and-scopes.md): method, path (relative to /api/v2) and the scope(s) it names. */
const SPEC_ENDPOINTS: readonly [method: string, path: string, scopes: readonly string[]][] = [
  ["POST", "/auth/token/renew", []],
  ["GET", "/openapi.json", []],
  ["GET", "/contacts", ["contacts"]],
  ["POST", "/contacts", ["contacts"]],
  ["GET", "/contacts/{contact_uuid}", ["contacts"]],
  ["PATCH", "/contacts/{contact_uuid}", ["contacts"]],
  ["DELETE", "/contacts/{contact_uuid}", ["contacts"]],
  ["GET", "/appointments", ["appointments"]],
  ["GET", "/appointments/{appointment_uuid}", ["appointments"]],
  ["PATCH", "/appointments/{appointment_uuid}", ["appointments"]],
  ["POST", "/appointments/{appointment_uuid}/cancel", ["appointments"]],
  ["GET", "/booking-widgets", ["appointments"]],
  ["GET", "/calendar/hours", ["appointments"]],
  ["PUT", "/calendar/hours", ["appointments"]],
  ["GET", "/calendar/availability", ["calendar"]],
  ["POST", "/calendar/bookings", ["calendar"]],
  ["GET", "/messages", ["messages"]],
  ["GET", "/paths", ["paths", "analytics"]],
  ["POST", "/paths", ["paths"]],
  ["GET", "/analytics/paths", ["analytics"]],
  ["GET", "/fields", ["fields"]],
  ["POST", "/fields", ["fields"]],
  ["GET", "/lead-orders", ["lead-orders"]],
  ["GET", "/lead-orders/{order_uuid}", ["lead-orders"]],
  ["PATCH", "/lead-orders/{order_uuid}", ["lead-orders"]],
  ["POST", "/lead-orders/{order_uuid}/pause", ["lead-orders"]],
  ["POST", "/lead-orders/{order_uuid}/cancel", ["lead-orders"]],
  ["GET", "/voice-ai/agents", ["voice-ai"]],
  ["GET", "/voice-ai/agents/{agent_uuid}", ["voice-ai"]],
  ["GET", "/voice-ai/calls", ["voice-ai"]],
  ["POST", "/voice-ai/calls", ["voice-ai"]],
  ["GET", "/voice-ai/calls/{call_uuid}", ["voice-ai"]],
  ["POST", "/voice-ai/calls/{call_uuid}/cancel", ["voice-ai"]],
  ["GET", "/voice-ai/wallet", ["voice-ai"]],
  ["GET", "/users", ["users"]],
  ["GET", "/users/invites", ["users"]],
  ["POST", "/users/invites", ["users"]],
  ["PATCH", "/users/{agent_uuid}/role", ["users"]],
  ["DELETE", "/users/{agent_uuid}", ["users"]],
  ["GET", "/settings", ["settings"]],
  ["PATCH", "/settings", ["settings"]],
];

/** Operations we added (docs/decisions/routes-and-scopes.md), required like the specification's rows. */
const DESIGN_REQUIRED: readonly [method: string, path: string][] = [
  ["POST", "/contacts/{contact_uuid}/restore"],
  ["GET", "/contacts/tags"],
  ["GET", "/contacts/sources"],
  // docs/decisions/lists-and-bulk.md.
  ["POST", "/contacts/bulk"],
];

/**
 * Paths allowed beyond the specification's table (docs/decisions/routes-and-scopes.md). A new path must be
 * added here on purpose, after it is written into that record.
 */
const DESIGN_PATHS = [
  "/contacts/{contact_uuid}/restore",
  "/contacts/tags",
  "/contacts/sources",
  "/contacts/bulk",
  "/fields/{field_uuid}",
  "/messages/{message_uuid}",
  "/messages/{message_uuid}/read",
  "/messages/{message_uuid}/unread",
  "/paths/{path_uuid}",
  "/paths/{path_uuid}/publish",
  "/paths/{path_uuid}/versions",
  // docs/decisions/events-and-webhooks.md.
  "/events",
  "/events/{event_uuid}",
  "/events/{event_uuid}/redeliver",
  "/webhook-endpoints",
  "/webhook-endpoints/{webhook_endpoint_uuid}",
  "/webhook-endpoints/{webhook_endpoint_uuid}/rotate-secret",
  "/webhook-endpoints/{webhook_endpoint_uuid}/test",
  "/webhook-endpoints/{webhook_endpoint_uuid}/deliveries",
];

const PUBLIC_OPERATIONS = new Set(["POST /auth/token/renew", "GET /openapi.json"]);
const ERROR_SCHEMA_REF = "#/components/schemas/Error";

function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  let current = schema;
  for (let hops = 0; current && typeof current.$ref === "string" && hops < 10; hops++) {
    const name = current.$ref.replace("#/components/schemas/", "");
    current = doc.components?.schemas?.[name];
  }
  return current;
}

/** A JSON media type with a schema and an example, on the media type or the (referenced) schema. */
function jsonMediaProblems(doc: Json, content: Json | undefined, what: string): string[] {
  const media = content?.["application/json"];
  if (!media) return [`${what} has no application/json content`];
  if (!media.schema) return [`${what} has no JSON schema`];
  const schema = resolve(doc, media.schema);
  if (!schema) return [`${what} references a missing schema ${media.schema.$ref}`];
  const hasExample =
    media.example !== undefined ||
    (media.examples && Object.keys(media.examples).length > 0) ||
    schema.example !== undefined ||
    media.schema.example !== undefined;
  return hasExample ? [] : [`${what} has no example`];
}

const nonEmptyString = (value: unknown) => typeof value === "string" && value.trim().length > 0;

/** Every rule the document must meet; returns one line per problem, empty when it is sound. */
export function documentProblems(doc: Json): string[] {
  const problems: string[] = [];
  if (doc.openapi !== "3.0.3") problems.push(`openapi is ${doc.openapi}, not 3.0.3`);
  if (doc.info?.version !== "2.0.0") problems.push(`info.version is ${doc.info?.version}, not 2.0.0`);

  const schemes = (doc.components?.securitySchemes ?? {}) as Record<string, Json>;
  const bearerSchemes = new Set(
    Object.entries(schemes)
      .filter(([, s]) => s.type === "http" && String(s.scheme).toLowerCase() === "bearer")
      .map(([name]) => name),
  );
  if (bearerSchemes.size === 0) problems.push("components.securitySchemes has no http bearer scheme");
  const oauthSchemes = new Set(
    Object.entries(schemes)
      .filter(([, s]) => s.type === "oauth2" && s.flows?.authorizationCode)
      .map(([name]) => name),
  );
  if (oauthSchemes.size === 0) problems.push("components.securitySchemes has no OAuth 2 authorization code scheme");

  const errorSchema = resolve(doc, { $ref: ERROR_SCHEMA_REF });
  if (!errorSchema) problems.push("components.schemas.Error is missing");
  else {
    for (const field of ["success", "error", "code"]) {
      if (!errorSchema.properties?.[field]) problems.push(`Error schema lacks ${field}`);
    }
    if (!["success", "error"].every((f) => errorSchema.required?.includes(f))) {
      problems.push("Error schema does not require success and error");
    }
  }

  const declaredTags = new Set(((doc.tags ?? []) as Json[]).map((t) => t.name));
  const operations = operationsOf(doc);
  const seenIds = new Map<string, string>();

  for (const { method, path, key, op } of operations) {
    const fail = (what: string) => problems.push(`${key}: ${what}`);
    const isPublic = PUBLIC_OPERATIONS.has(key);

    if (!nonEmptyString(op.operationId)) fail("no operationId");
    else if (seenIds.has(op.operationId)) fail(`operationId ${op.operationId} repeats ${seenIds.get(op.operationId)}`);
    else seenIds.set(op.operationId, key);

    if (!Array.isArray(op.tags) || op.tags.length === 0) fail("no tag");
    else for (const tag of op.tags) if (!declaredTags.has(tag)) fail(`tag ${tag} is not declared in the top-level tags`);
    if (!nonEmptyString(op.summary)) fail("no summary");
    if (!nonEmptyString(op.description)) fail("no description");

    const parameters = (op.parameters ?? []) as Json[];
    for (const name of path.match(/\{([^}]+)\}/g) ?? []) {
      const bare = name.slice(1, -1);
      if (!parameters.some((p) => p.in === "path" && p.name === bare && p.required === true)) {
        fail(`path parameter ${bare} is not declared as a required path parameter`);
      }
    }

    const responses = (op.responses ?? {}) as Record<string, Json>;
    const success = Object.keys(responses).filter((status) => /^2\d\d$/.test(status));
    if (success.length === 0) fail("no 2xx response");
    for (const status of success) {
      // 204 has no body by definition; every other success carries the JSON record.
      if (status === "204") continue;
      for (const p of jsonMediaProblems(doc, responses[status]?.content, `${status} response`)) fail(p);
    }
    if (op.requestBody) {
      for (const p of jsonMediaProblems(doc, op.requestBody.content, "request body")) fail(p);
    }

    const takesInput = parameters.length > 0 || Boolean(op.requestBody);
    const required = [
      ...(takesInput ? ["400"] : []),
      ...(isPublic ? [] : ["401", "403"]),
      ...(path.includes("{") ? ["404"] : []),
      "429",
    ];
    for (const status of required) {
      const response = responses[status];
      if (!response) fail(`no documented ${status} response`);
      else if (response.content?.["application/json"]?.schema?.$ref !== ERROR_SCHEMA_REF) {
        fail(`${status} response does not use the Error schema`);
      }
    }
    for (const [status, response] of Object.entries(responses)) {
      if (/^[45]\d\d$/.test(status) && response.content?.["application/json"]?.schema?.$ref !== ERROR_SCHEMA_REF) {
        fail(`${status} response does not use the Error schema`);
      }
    }

    const rateLimit = op["x-ratelimit"] as Json | undefined;
    const rule = rateLimitRule(method, path);
    if (!rateLimit) fail("no x-ratelimit");
    else {
      if (!Number.isInteger(rateLimit.limit) || rateLimit.limit <= 0) fail(`x-ratelimit.limit ${rateLimit.limit} is not a positive integer`);
      else if (rateLimit.limit !== rule.limit) fail(`x-ratelimit.limit ${rateLimit.limit} differs from the table's ${rule.limit}`);
      if (rateLimit.window_seconds !== rule.windowSeconds) fail(`x-ratelimit.window_seconds is ${rateLimit.window_seconds}`);
      if (rateLimit.bucket !== rule.bucket) fail(`x-ratelimit.bucket is ${rateLimit.bucket}, not ${rule.bucket}`);
      if (rateLimit.per !== (isPublic ? "ip" : "key")) fail(`x-ratelimit.per is ${rateLimit.per}`);
    }

    const scopes = op["x-required-scopes"];
    if (!Array.isArray(scopes)) fail("no x-required-scopes");
    else if (isPublic && scopes.length > 0) fail("a public operation lists required scopes");
    else if (!isPublic && scopes.length === 0) fail("x-required-scopes is empty on a secured operation");
    else {
      for (const scope of scopes) {
        if (!(knownScopes as readonly string[]).includes(scope)) fail(`x-required-scopes names unknown scope ${scope}`);
      }
      const specRow = SPEC_ENDPOINTS.find(([m, p]) => m === method && p === path);
      if (specRow && [...specRow[2]].sort().join() !== [...scopes].sort().join()) {
        fail(`x-required-scopes ${JSON.stringify(scopes)} differs from the specification's ${JSON.stringify(specRow[2])}`);
      }
    }

    if (isPublic) {
      if (!Array.isArray(op.security) || op.security.length !== 0) fail("a public operation must declare security: []");
    } else {
      // A key (the bearer scheme, no scopes), or an app's OAuth token holding any one of the route's scopes.
      const security = (op.security ?? []) as Json[];
      const bearer = security.some((req) => Object.keys(req).length === 1 && bearerSchemes.has(Object.keys(req)[0]!));
      if (!bearer) fail(`security is ${JSON.stringify(security)}, without the bearer scheme`);
      const oauth = security.filter((req) => !bearerSchemes.has(Object.keys(req)[0]!));
      const offered = oauth.map((req) => {
        const [name, list] = Object.entries(req)[0] ?? [];
        if (Object.keys(req).length !== 1 || !oauthSchemes.has(name!)) fail(`security names ${JSON.stringify(req)}, neither the bearer nor the OAuth scheme`);
        if (!Array.isArray(list) || list.length !== 1) fail(`an OAuth alternative must name one scope: ${JSON.stringify(req)}`);
        return (list as string[])[0];
      });
      if ([...offered].sort().join() !== [...((op["x-required-scopes"] ?? []) as string[])].sort().join()) {
        fail(`OAuth alternatives ${JSON.stringify(offered)} are not the route's scopes ${JSON.stringify(op["x-required-scopes"])}`);
      }
    }
  }

  // Coverage: every row of the specification and every addition of ours, unconditionally (a whole resource
  // vanishing is reported row by row).
  const present = new Set(operations.map((o) => o.key));
  const expected = [...SPEC_ENDPOINTS.map(([m, p]) => [m, p] as const), ...DESIGN_REQUIRED];
  for (const [m, p] of expected) if (!present.has(`${m} ${p}`)) problems.push(`${m} ${p}: missing from the document`);

  const allowedPaths = new Set([...SPEC_ENDPOINTS.map(([, p]) => p), ...DESIGN_PATHS]);
  for (const path of Object.keys(doc.paths ?? {})) {
    if (!allowedPaths.has(path)) problems.push(`${path}: not in the specification's table or our additions`);
  }
  return problems;
}

describe("the OpenAPI document", () => {
  let doc: Json;

  beforeAll(async () => {
    const res = await api("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    doc = res.body;
  });

  it("is served without authentication as OpenAPI 3.0.3, version 2.0.0, with bearer and OAuth security", () => {
    expect(doc.openapi).toBe("3.0.3");
    expect(doc.info.version).toBe("2.0.0");
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.oauth2.flows.authorizationCode).toMatchObject({
      authorizationUrl: "/dashboard/oauth/authorize",
      tokenUrl: "/oauth/token",
      refreshUrl: "/oauth/token",
    });
    expect(Object.keys(doc.components.securitySchemes.oauth2.flows.authorizationCode.scopes)).toEqual([...knownScopes]);
    expect(doc.paths["/contacts"].get.security).toEqual([{ bearerAuth: [] }, { oauth2: ["contacts"] }]);
    expect(doc.paths["/paths"].get.security).toEqual([{ bearerAuth: [] }, { oauth2: ["paths"] }, { oauth2: ["analytics"] }]);
  });

  it("is the document the export script writes", () => {
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildPartnerApi().openApiDocument())));
  });

  it("describes every operation completely", () => {
    expect(operationsOf(doc).length).toBeGreaterThanOrEqual(2);
    expect(documentProblems(doc)).toEqual([]);
  });

  it("keeps the public operations public", () => {
    const keys = new Set(operationsOf(doc).map((o) => o.key));
    for (const key of PUBLIC_OPERATIONS) expect(keys).toContain(key);
  });

  it("lists no operation outside the specification's table and our additions", () => {
    const problems = documentProblems(doc).filter((p) => p.includes("not in the specification"));
    expect(problems).toEqual([]);
  });

  it("gives every operation a 400 example its own input can produce", () => {
    for (const { key, path, op } of operationsOf(doc)) {
      const error: string = op.responses["400"].content["application/json"].example.error;
      const names = ((op.parameters ?? []) as Json[]).map((p) => p.name as string);
      expect(error, key).not.toBe("");
      if (error.startsWith("limit ")) expect(names, key).toContain("limit");
      const pathParam = /\{([^}]+)\}/.exec(path)?.[1];
      if (pathParam && error.endsWith("must be a UUID")) expect(error, key).toBe(`${pathParam} must be a UUID`);
    }
    const example400 = (key: string) => operationsOf(doc).find((o) => o.key === key)!.op.responses["400"].content["application/json"].example.error;
    expect(example400("GET /contacts/{contact_uuid}")).toBe("contact_uuid must be a UUID");
    expect(example400("GET /contacts")).toBe("limit must be a whole number from 1 to 100");
    expect(example400("GET /settings")).toBe("X-D1-Bookmark must be a bookmark returned by this API");
  });

  it("documents every path parameter", () => {
    for (const { key, op } of operationsOf(doc)) {
      for (const p of (op.parameters ?? []) as Json[]) if (p.in === "path") expect(p.description, `${key} ${p.name}`).toMatch(/^UUID of the /);
    }
  });

  it("documents the idempotency conflict on every secured POST, and no other conflict where none is raised", () => {
    for (const { key, method, op } of operationsOf(doc)) {
      if (method !== "POST" || !op.responses["409"]) continue;
      expect(op.responses["409"].description, key).toMatch(/`idempotency_in_progress` while a request with the same Idempotency-Key is still running\.$/);
    }
    const conflict = (key: string) => operationsOf(doc).find((o) => o.key === key)!.op.responses["409"];
    for (const key of ["POST /paths", "POST /voice-ai/calls", "POST /messages/{message_uuid}/read"]) {
      expect(conflict(key).description, key).toMatch(/^`idempotency_in_progress`/);
      expect(conflict(key).content["application/json"].example.code, key).toBe("idempotency_in_progress");
    }
    expect(conflict("POST /contacts/{contact_uuid}/restore").description).toContain("Contact is not deleted");
    expect(conflict("POST /messages").content["application/json"].example.code).toBe("sms_opt_out");
  });

  it("says which booking settings each calendar, appointment and booking-widget operation applies", () => {
    const description = (key: string) => operationsOf(doc).find((o) => o.key === key)!.op.description as string;
    const allRules = ["booking.min_notice_minutes", "booking.buffer_minutes", "booking.default_slot_minutes", "GET /settings"];
    for (const key of ["GET /calendar/availability", "POST /calendar/bookings", "PATCH /appointments/{appointment_uuid}"]) {
      for (const setting of allRules) expect(description(key), key).toContain(setting);
    }
    for (const key of ["GET /calendar/hours", "PUT /calendar/hours", "GET /booking-widgets"]) {
      expect(description(key), key).toContain("booking.default_slot_minutes");
    }
    expect(description("GET /booking-widgets")).toContain("team member was removed");
    expect(description("POST /calendar/bookings")).toContain("This booking widget is inactive: its team member was removed from the agency");
    const schemas = doc.components.schemas;
    expect(schemas.CalendarHours.properties.slot_minutes_source.enum).toEqual(["calendar", "settings"]);
    expect(schemas.BookingDefaults.description).not.toContain("do not apply them");
  });

  it("says which settings a Voice AI call obeys, and documents dispatch_at and when a call is held", () => {
    const operation = (key: string) => operationsOf(doc).find((o) => o.key === key)!.op;
    const create = operation("POST /voice-ai/calls");
    for (const setting of ["calling_hours", "calling_timezone", "voice.default_voice_agent_uuid", "voice.max_call_minutes", "voice.voicemail_behavior", "dispatch_at"]) {
      expect(create.description, setting).toContain(setting);
    }
    expect(create.description).toContain("scheduled_at must fall within calling hours 09:00-19:00 America/New_York");
    expect(create.responses["201"].description).toContain("dispatch_at");
    const call = doc.components.schemas.VoiceCall;
    expect(call.properties.dispatch_at).toMatchObject({ type: "string", nullable: true, format: "date-time" });
    expect(call.properties.status.description).toContain("dispatch_at");
    for (const key of ["GET /settings", "PATCH /settings"]) {
      const description = operation(key).description as string;
      for (const applied of ["POST /voice-ai/calls", "GET /calendar/availability", "POST /calendar/bookings", "PUT /calendar/hours"]) {
        expect(description, `${key} names ${applied}`).toContain(applied);
      }
      expect(description).not.toMatch(/do not apply|not applied|stored only/i);
    }
    for (const name of ["CallingHours", "BookingDefaults", "VoiceDefaults"]) {
      expect(JSON.stringify(doc.components.schemas[name]), name).not.toMatch(/do not apply|not applied|stored only|Not used/i);
    }
  });

  it("holds the document to the specification's full endpoint list and our required additions", () => {
    expect(documentProblems(doc).filter((p) => p.endsWith("missing from the document"))).toEqual([]);
  });

  describe("fails on a deliberately broken copy", () => {
    const broken = (mutate: (copy: Json, ops: Operation[]) => void) => {
      const copy = structuredClone(doc);
      mutate(copy, operationsOf(copy));
      return documentProblems(copy);
    };
    const first = (ops: Operation[]) => ops[0]!;
    /** A secured operation of the copy (the specification's table requires many, so there always is one). */
    const secured = (ops: Operation[]) => {
      const found = ops.find((o) => !PUBLIC_OPERATIONS.has(o.key));
      if (!found) throw new Error("the document has no secured operation");
      return found;
    };

    const cases: [name: string, mutate: (copy: Json, ops: Operation[]) => void, expected: RegExp][] = [
      ["a missing summary", (_c, ops) => delete first(ops).op.summary, /: no summary$/],
      ["an empty description", (_c, ops) => (first(ops).op.description = " "), /: no description$/],
      ["a missing operationId", (_c, ops) => delete first(ops).op.operationId, /: no operationId$/],
      [
        "a repeated operationId",
        (copy) => {
          copy.paths["/auth/token/renew"].put = { ...copy.paths["/auth/token/renew"].post };
        },
        /operationId renewToken repeats/,
      ],
      ["no tags", (_c, ops) => (first(ops).op.tags = []), /: no tag$/],
      ["an undeclared tag", (_c, ops) => (first(ops).op.tags = ["Nowhere"]), /tag Nowhere is not declared/],
      [
        "a success response without an example",
        (copy) => {
          const media = copy.paths["/openapi.json"].get.responses["200"].content["application/json"];
          delete media.example;
          const ref = media.schema.$ref as string | undefined;
          if (ref) delete copy.components.schemas[ref.split("/").pop()!].example;
          delete media.schema.example;
        },
        /GET \/openapi.json: 200 response has no example$/,
      ],
      [
        "a success response without a schema",
        (copy) => delete copy.paths["/openapi.json"].get.responses["200"].content["application/json"].schema,
        /GET \/openapi.json: 200 response has no JSON schema$/,
      ],
      [
        "no success response",
        (_c, ops) => {
          for (const status of Object.keys(first(ops).op.responses)) if (status.startsWith("2")) delete first(ops).op.responses[status];
        },
        /: no 2xx response$/,
      ],
      [
        "a request body without an example",
        (copy) => {
          const media = copy.paths["/auth/token/renew"].post.requestBody.content["application/json"];
          delete media.example;
          delete copy.components.schemas[(media.schema.$ref as string).split("/").pop()!].example;
        },
        /POST \/auth\/token\/renew: request body has no example$/,
      ],
      ["no 429", (_c, ops) => delete first(ops).op.responses["429"], /: no documented 429 response$/],
      [
        "no 400 on an operation with a body",
        (copy) => delete copy.paths["/auth/token/renew"].post.responses["400"],
        /POST \/auth\/token\/renew: no documented 400 response$/,
      ],
      ["no 401 on a secured operation", (_c, ops) => delete secured(ops).op.responses["401"], /: no documented 401 response$/],
      ["no 403 on a secured operation", (_c, ops) => delete secured(ops).op.responses["403"], /: no documented 403 response$/],
      [
        "no 404 on a path with a parameter",
        (copy) => {
          copy.paths["/fields/{field_uuid}"] ??= {};
          copy.paths["/fields/{field_uuid}"].trace = {
            ...structuredClone(copy.paths["/auth/token/renew"].post),
            operationId: "traceField",
            parameters: [{ in: "path", name: "field_uuid", required: true, schema: { type: "string" } }],
          };
          delete copy.paths["/fields/{field_uuid}"].trace.responses["404"];
        },
        /TRACE \/fields\/\{field_uuid\}: no documented 404 response$/,
      ],
      [
        "an error response with another schema",
        (_c, ops) => (first(ops).op.responses["429"].content["application/json"].schema = { type: "object" }),
        /: 429 response does not use the Error schema$/,
      ],
      ["no x-ratelimit", (_c, ops) => delete first(ops).op["x-ratelimit"], /: no x-ratelimit$/],
      ["a rate limit that disagrees with the table", (_c, ops) => (first(ops).op["x-ratelimit"].limit += 1), /differs from the table/],
      ["a zero rate limit", (_c, ops) => (first(ops).op["x-ratelimit"].limit = 0), /is not a positive integer/],
      ["no x-required-scopes", (_c, ops) => delete first(ops).op["x-required-scopes"], /: no x-required-scopes$/],
      [
        "a secured operation without scopes",
        (_c, ops) => (secured(ops).op["x-required-scopes"] = []),
        /x-required-scopes is empty on a secured operation/,
      ],
      [
        "a public operation with scopes",
        (copy) => (copy.paths["/openapi.json"].get["x-required-scopes"] = ["contacts"]),
        /GET \/openapi.json: a public operation lists required scopes/,
      ],
      ["a secured operation without security", (_c, ops) => (secured(ops).op.security = []), /without the bearer scheme/],
      [
        "a secured operation whose OAuth scopes are not its own",
        (_c, ops) => (secured(ops).op.security = [{ bearerAuth: [] }, { oauth2: ["users"] }]),
        /OAuth alternatives \["users"\] are not the route's scopes/,
      ],
      ["no OAuth scheme", (copy) => delete copy.components.securitySchemes.oauth2, /no OAuth 2 authorization code scheme/],
      [
        "a public operation that inherits the global security",
        (copy) => delete copy.paths["/openapi.json"].get.security,
        /GET \/openapi.json: a public operation must declare security: \[\]/,
      ],
      ["no bearer scheme", (copy) => (copy.components.securitySchemes = {}), /no http bearer scheme/],
      ["another OpenAPI version", (copy) => (copy.openapi = "3.1.0"), /openapi is 3.1.0/],
      ["another API version", (copy) => (copy.info.version = "2.0.1"), /info.version is 2.0.1/],
      ["a missing public operation", (copy) => delete copy.paths["/openapi.json"], /GET \/openapi.json: missing from the document/],
      [
        "a resource missing one of its rows in the specification",
        (copy) => {
          delete copy.paths["/voice-ai/calls"].post;
        },
        /POST \/voice-ai\/calls: missing from the document/,
      ],
      ["a missing addition of ours", (copy) => delete copy.paths["/contacts/tags"], /GET \/contacts\/tags: missing from the document/],
      [
        "a path outside the specification and our additions",
        (copy) => (copy.paths["/contacts/export"] = { get: structuredClone(copy.paths["/openapi.json"].get) }),
        /\/contacts\/export: not in the specification's table or our additions/,
      ],
      [
        "an undeclared path parameter",
        (copy) => {
          copy.paths["/voice-ai/calls/{call_uuid}"] = { get: structuredClone(copy.paths["/openapi.json"].get) };
        },
        /path parameter call_uuid is not declared/,
      ],
    ];

    it.each(cases)("with %s", (_name, mutate, expected) => {
      const problems = broken(mutate);
      expect(problems.some((p) => expected.test(p)), problems.join("\n")).toBe(true);
    });

    it("with a secured operation's scope that differs from the specification", () => {
      let key = "";
      const problems = broken((_copy, ops) => {
        const op = ops.find((o) => SPEC_ENDPOINTS.some(([m, p, s]) => `${m} ${p}` === o.key && s.length > 0))!;
        const specScopes = SPEC_ENDPOINTS.find(([m, p]) => `${m} ${p}` === op.key)![2];
        key = op.key;
        // A known scope the specification does not name for this row, so only that comparison can object.
        op.op["x-required-scopes"] = [knownScopes.find((s) => !specScopes.includes(s))!];
      });
      expect(key).not.toBe("");
      expect(problems.some((p) => p.startsWith(`${key}: x-required-scopes`) && p.includes("differs from the specification's")), problems.join("\n")).toBe(true);
    });

    it("with a whole resource missing (every /lead-orders path removed)", () => {
      const problems = broken((copy) => {
        for (const path of Object.keys(copy.paths)) if (path === "/lead-orders" || path.startsWith("/lead-orders/")) delete copy.paths[path];
      });
      const rows = SPEC_ENDPOINTS.filter(([, p]) => p === "/lead-orders" || p.startsWith("/lead-orders/"));
      expect(rows).toHaveLength(5);
      for (const [m, p] of rows) expect(problems, problems.join("\n")).toContain(`${m} ${p}: missing from the document`);
    });
  });
});

describe("the API reference page", () => {
  it("serves HTML that loads /api/v2/openapi.json", async () => {
    const res = await call<string>("GET", "/api/v2/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(res.body).toContain("/api/v2/openapi.json");
  });
});

describe("the scope list", () => {
  it("knows every scope the specification's table names", () => {
    const named = new Set(SPEC_ENDPOINTS.flatMap(([, , s]) => s));
    for (const scope of named) expect([WILDCARD_SCOPE, ...knownScopes]).toContain(scope);
  });
});
