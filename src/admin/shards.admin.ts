import { z, type RouteHandler } from "@hono/zod-openapi";
import { getShard, hasShardSchema, saveShard, shardBinding } from "@/db/shards";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-router";
import { assignSmsNumber, smsNumberOf } from "@/domain/messages/sms-numbers";
import { badRequest, conflict, notFound } from "@/lib/errors";
import { phoneField } from "@/lib/phone";
import { jsonBody } from "@/lib/openapi";
import { moveMessages, startMove } from "@/domain/agencies/move-agency";
import { latestMove, type AgencyMove as AgencyMoveRow } from "@/domain/agencies/agency-moves.repository";
import { agencyMoveStates } from "@/db/schema";
import { describeShards, requireShard, type ShardView } from "@/domain/agencies/placement";
import { nowIso } from "@/lib/time";
import { adminJson, adminRoute, agencyParams, DEFAULT_ERROR_STATUSES, requireAgency } from "./admin-route";
import { Agency, ShardRegion, shardName } from "./admin.schemas";
import { toPublicAgency } from "@/domain/agencies/agencies.repository";

const success = z.literal(true);

const Shard = z
  .object({
    name: z.string().openapi({ description: "The Worker's D1 binding of the shard's database: `DB` (also the directory) or `DB_<NAME>`." }),
    region: ShardRegion.nullable().openapi({ description: "Where the database was created; null when not recorded (never chosen by region)." }),
    open: z.boolean().openapi({ description: "Whether new agencies are placed here automatically (by region or by default)." }),
    bound: z.boolean().openapi({ description: "Whether this Worker has the binding; an unbound shard cannot be used." }),
    agency_count: z.number().int(),
    size_bytes: z.number().int().nullable().openapi({ description: "The database's size as D1 reports it; a D1 database holds at most 10 GB. Null when unbound." }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("AdminShard");

const toPublicShard = (s: ShardView) => ({
  name: s.name,
  region: s.region,
  open: s.open,
  bound: s.bound,
  agency_count: s.agencyCount,
  size_bytes: s.sizeBytes,
  created_at: s.createdAt,
  updated_at: s.updatedAt,
});

const shardParams = z.object({ name: shardName.openapi({ param: { name: "name", in: "path" } }) });

const AgencyMove = z
  .object({
    move_uuid: z.string().openapi({ description: "The move's id; also the id of its Workflow instance (`wrangler workflows instances describe agency-moves <move_uuid>`)." }),
    from: z.string().openapi({ description: "The shard the agency moves away from." }),
    to: z.string().openapi({ description: "The shard it moves to." }),
    state: z.enum(agencyMoveStates).openapi({
      description:
        "`copying`: the agency's writes answer 503 `agency_moving` and its reads are served from the old shard while its rows are " +
        "copied, a page per step. `verifying`: the row count of every table is compared on both shards. `switching`: the agency " +
        "lives on the new shard and writes again (each key as soon as its gate is told, within two minutes at most); its old " +
        "copy is being deleted. `done`: the old copy is gone. `failed`: the move was undone: the agency is whole on its old " +
        "shard and writes again, the partial copy is deleted, and `error` says why.",
    }),
    rows_copied: z.number().int().openapi({ description: "Rows copied to the new shard so far, over every table of the agency." }),
    rows_total: z.number().int().nullable().openapi({ description: "Rows to copy, counted once the agency's writes are paused; null until then." }),
    error: z.string().nullable().openapi({ description: "Why the move failed; null unless `state` is `failed`." }),
    started_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable().openapi({ description: "When the move ended (`done` or `failed`); null while it runs." }),
  })
  .openapi("AdminAgencyMove", {
    example: {
      move_uuid: "4f6b8a1e-2c3d-4e5f-8a9b-0c1d2e3f4a5b",
      from: "DB",
      to: "DB_EU",
      state: "copying",
      rows_copied: 12_000,
      rows_total: 20_431,
      error: null,
      started_at: "2026-12-02T15:00:00.000Z",
      updated_at: "2026-12-02T15:00:04.000Z",
      finished_at: null,
    },
  });

const toPublicMove = (m: AgencyMoveRow) => ({
  move_uuid: m.id,
  from: m.fromShard,
  to: m.toShard,
  state: m.state,
  rows_copied: m.rowsCopied,
  rows_total: m.rowsTotal,
  error: m.error,
  started_at: m.createdAt,
  updated_at: m.updatedAt,
  finished_at: m.finishedAt,
});

export const getAgencyRoute = adminRoute({
  method: "get",
  path: "/agencies/{agency_uuid}",
  operationId: "adminGetAgency",
  summary: "Get an agency, with its shard, region and latest move",
  request: { params: agencyParams },
  responses: {
    200: adminJson(
      z.object({ success, agency: Agency, move: AgencyMove.nullable().openapi({ description: "The agency's latest move (under way or ended); null when it never moved." }) }),
      "The agency.",
    ),
  },
});

type FoundAgency = Awaited<ReturnType<typeof requireAgency>>;

/** The operator's view of an agency where it lives now: its shard's region, and its SMS number (read unless given). */
async function agencyView(c: { env: AppBindings["Bindings"] }, agency: FoundAgency, smsNumber?: string | null) {
  const [shard, number] = await Promise.all([getShard(c.env, agency.location.shard), smsNumber === undefined ? smsNumberOf(c.env, agency.id) : smsNumber]);
  return toPublicAgency(agency, agency.location, shard?.region ?? null, number);
}

const getAgencyHandler: RouteHandler<typeof getAgencyRoute, AppBindings> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const [view, move] = await Promise.all([agencyView(c, agency), latestMove(c.env, agency.id)]);
  return c.json({ success: true as const, agency: view, move: move ? toPublicMove(move) : null }, 200);
};

const MoveBody = z.strictObject({ shard: shardName }).openapi("AdminMoveAgency", { example: { shard: "DB_EU" } });

export const moveAgencyRoute = adminRoute({
  method: "post",
  path: "/agencies/{agency_uuid}/move",
  operationId: "adminMoveAgency",
  summary: "Start moving an agency to another shard",
  description:
    "Starts a move of the agency to the shard named (open or closed) and answers 202 at once with the move, `copying`. " +
    "The move runs as a Workflow, in steps of bounded size that resume after a restart: it pauses the agency's writes, " +
    "copies every record a page at a time, checks the row count of every table on both shards, switches the directory, " +
    "then deletes the old copy. Meanwhile the agency's writes answer 503 `agency_moving` with `Retry-After`, its reads " +
    "keep working, every other agency is served as usual, and its API keys work before and after. A step that keeps " +
    "failing undoes the move (`failed`, with the reason): the agency stays whole where it was and writes again. " +
    "Follow it with `GET /admin/v1/agencies/{agency_uuid}`. 409 when the agency already lives on that shard, is already " +
    "being moved, or its previous move is still deleting a copy it left.",
  request: { params: agencyParams, body: jsonBody(MoveBody) },
  responses: {
    202: adminJson(z.object({ success, agency: Agency, move: AgencyMove }), "The move has started; the agency is still on its old shard."),
  },
}, DEFAULT_ERROR_STATUSES, {
  409: {
    description:
      "The agency already lives on that shard (the example), is already being moved " +
      `(\`${moveMessages.moving("<agency_uuid>")}\`), or its previous move is still removing the copy it left ` +
      `(\`${moveMessages.cleaning("DB_EU")}\`).`,
    error: moveMessages.sameShard("DB_EU"),
  },
});

const moveAgencyHandler: RouteHandler<typeof moveAgencyRoute, AppBindings> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const target = await requireShard(c.env, c.req.valid("json").shard);
  const move = await startMove(c.env, agency.location, target.name);
  return c.json({ success: true as const, agency: await agencyView(c, agency), move: toPublicMove(move) }, 202);
};

export const listShardsRoute = adminRoute({
  method: "get",
  path: "/shards",
  operationId: "adminListShards",
  summary: "List shards with their agency counts and sizes",
  responses: { 200: adminJson(z.object({ success, shards: z.array(Shard) }), "Every registered shard, by name.") },
});

const listShardsHandler: RouteHandler<typeof listShardsRoute, AppBindings> = async (c) =>
  c.json({ success: true as const, shards: (await describeShards(c.env)).map(toPublicShard) }, 200);

export const shardMessages = {
  notBound: (name: string) => `This Worker has no D1 binding named ${name}: add it to wrangler.toml and deploy first`,
  noSchema: (name: string) => `Shard ${name} has no schema yet: apply the migrations to it first (npm run db:migrate:remote)`,
  notRegistered: (name: string) => `Shard not found: ${name}`,
} as const;

const PutShardBody = z
  .strictObject({ region: ShardRegion.nullable(), open: z.boolean().default(true) })
  .openapi("AdminPutShard", { example: { region: "weur", open: true } });

export const putShardRoute = adminRoute({
  method: "put",
  path: "/shards/{name}",
  operationId: "adminPutShard",
  summary: "Register a shard, or replace its region and open state",
  description:
    "The shard is a D1 database bound to the Worker under `name`, created with `wrangler d1 create --location <region>` " +
    "(or `--jurisdiction eu`) and migrated. 400 when the binding is missing or the database has no schema. 201 when " +
    "registered now, 200 when it was already.",
  request: { params: shardParams, body: jsonBody(PutShardBody) },
  responses: {
    200: adminJson(z.object({ success, shard: Shard }), "The shard, updated."),
    201: adminJson(z.object({ success, shard: Shard }), "The shard, registered."),
  },
});

async function viewOf(c: { env: AppBindings["Bindings"] }, name: string) {
  return (await describeShards(c.env, (s) => s.name === name))[0]!;
}

const putShardHandler: RouteHandler<typeof putShardRoute, AppBindings> = async (c) => {
  const { name } = c.req.valid("param");
  const body = c.req.valid("json");
  const d1 = shardBinding(c.env, name);
  if (!d1) throw badRequest(shardMessages.notBound(name));
  if (!(await hasShardSchema(d1))) throw badRequest(shardMessages.noSchema(name));
  const existed = await getShard(c.env, name);
  await saveShard(c.env, { name, region: body.region, open: body.open }, nowIso());
  const shard = toPublicShard(await viewOf(c, name));
  return existed ? c.json({ success: true as const, shard }, 200) : c.json({ success: true as const, shard }, 201);
};

const PatchShardBody = z
  .strictObject({ region: ShardRegion.nullable().optional(), open: z.boolean().optional() })
  .openapi("AdminPatchShard", { example: { open: false } });

export const patchShardRoute = adminRoute({
  method: "patch",
  path: "/shards/{name}",
  operationId: "adminPatchShard",
  summary: "Open or close a shard for new agencies, or record its region",
  description: "Closing a shard stops placing new agencies on it; its agencies stay, and an operator may still name it explicitly.",
  request: { params: shardParams, body: jsonBody(PatchShardBody) },
  responses: { 200: adminJson(z.object({ success, shard: Shard }), "The shard.") },
});

const patchShardHandler: RouteHandler<typeof patchShardRoute, AppBindings> = async (c) => {
  const { name } = c.req.valid("param");
  const body = c.req.valid("json");
  const existing = await getShard(c.env, name);
  if (!existing) throw notFound(shardMessages.notRegistered(name));
  await saveShard(c.env, { name, region: body.region === undefined ? existing.region : body.region, open: body.open ?? existing.open }, nowIso());
  return c.json({ success: true as const, shard: toPublicShard(await viewOf(c, name)) }, 200);
};

const SmsNumberBody = z
  .strictObject({ number: phoneField("number") })
  .openapi("AdminSmsNumber", { example: { number: "+14155550100" } });

export const putSmsNumberRoute = adminRoute({
  method: "put",
  path: "/agencies/{agency_uuid}/sms-number",
  operationId: "adminPutSmsNumber",
  summary: "Assign the agency's SMS sender number",
  description:
    "Sets the number (E.164, or a 10-digit US number) the agency's SMS are sent from and inbound SMS to it are routed by, " +
    "replacing the agency's previous one. One agency per number: 409 when another agency has it. Point the number's " +
    "\"A message comes in\" webhook in Twilio's console at `POST /providers/twilio/sms` of this deployment.",
  request: { params: agencyParams, body: jsonBody(SmsNumberBody) },
  responses: {
    200: adminJson(z.object({ success, agency: Agency }), "The agency, with its number."),
    409: adminJson(z.object({ success: z.literal(false), error: z.string(), code: z.string() }), "Another agency has this number."),
  },
});

const putSmsNumberHandler: RouteHandler<typeof putSmsNumberRoute, AppBindings> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const { number } = c.req.valid("json");
  const { heldBy } = await assignSmsNumber(c.env, agency.id, number);
  if (heldBy) throw conflict(`${number} is the SMS number of another agency (${heldBy})`);
  return c.json({ success: true as const, agency: await agencyView(c, agency, number) }, 200);
};

/** Shards and where agencies live, mounted on the operator router (admin.index.ts). */
export const shardsAdminRouter = createRouter()
  .openapi(getAgencyRoute, getAgencyHandler)
  .openapi(moveAgencyRoute, moveAgencyHandler)
  .openapi(listShardsRoute, listShardsHandler)
  .openapi(putShardRoute, putShardHandler)
  .openapi(patchShardRoute, patchShardHandler)
  .openapi(putSmsNumberRoute, putSmsNumberHandler);
