import type { RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppBindings } from "@/lib/context";
import { OPERATOR } from "@/domain/audit/audit-log";
import * as keys from "@/domain/auth/api-keys.repository";
import type { ApiKeyRow } from "@/domain/auth/api-keys.repository";
import * as keyOps from "@/domain/auth/key-operations";
import { assertKnownPath } from "@/domain/paths/path-lookup";
import { recordPathEvent } from "@/domain/paths/path-events.repository";
import { createMember as insertMember, toPublicMember } from "@/domain/users/members.repository";
import { recordLocation } from "@/db/shards";
import { createWithDirectoryRecord } from "@/db/directory-records";
import { notFound } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { nowIso } from "@/lib/time";
import { chooseShard } from "@/domain/agencies/placement";
import { useShard } from "@/middleware/shard-session";
import { requireAgency } from "./admin-route";
import * as agencies from "@/domain/agencies/agencies.repository";
import type * as routes from "./admin.routes";

type Routes = typeof routes;
type Handler<K extends keyof Routes> = RouteHandler<Routes[K], AppBindings>;

const toPublicKey = (k: ApiKeyRow) => ({
  key_uuid: k.id,
  agency_uuid: k.agencyId,
  name: k.name,
  kind: k.kind,
  scopes: k.scopes,
  expires_at: k.expiresAt,
  rate_limit_multiplier: k.rateLimitMultiplier,
  revoked_at: k.revokedAt,
  last_used_at: k.lastUsedAt,
  created_at: k.createdAt,
  updated_at: k.updatedAt,
});

/** Key changes through the operator API are recorded with the actor "operator". */
const asOperator = (c: Context<AppBindings>): keyOps.KeyActionContext => ({ db: c.var.db, env: c.env, actor: OPERATOR });

/** The key, from its agency's shard, found through the directory (the operator names keys by id alone). */
async function requireKey(c: Context<AppBindings>, keyId: string) {
  const id = keyId.toLowerCase();
  const location = await recordLocation(c.env, "api_key", id);
  if (!location) throw notFound(keyOps.keyMessages.notFound);
  return keyOps.requireKey(useShard(c, location.shard, "primary"), id);
}

export const createAgency: Handler<"createAgency"> = async (c) => {
  const { name, timezone, region, shard } = c.req.valid("json");
  const placed = await chooseShard(c.env, { region, shard });
  const agency = await agencies.createAgency(c.env, placed.name, { name, timezone });
  return c.json({ success: true as const, agency: agencies.toPublicAgency(agency, { shard: placed.name }, placed.region, null) }, 201);
};

export const listAgencies: Handler<"listAgencies"> = async (c) => {
  return c.json({ success: true as const, agencies: await agencies.listAgencies(c.env) }, 200);
};

export const createKey: Handler<"createKey"> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const body = c.req.valid("json");
  const created = await keyOps.createKey(asOperator(c), agency.id, {
    name: body.name,
    scopes: body.scopes,
    expires: body.expires,
    expiresAt: body.expires_at ? new Date(body.expires_at).toISOString() : undefined,
    rateLimitMultiplier: body.rate_limit_multiplier,
  });
  return c.json(
    { success: true as const, key: toPublicKey(created.key), access_token: created.accessToken, rotate_key: created.rotateKey },
    201,
  );
};

export const listKeys: Handler<"listKeys"> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const rows = await keys.listApiKeys(c.var.db, agency.id);
  return c.json({ success: true as const, keys: rows.map(toPublicKey) }, 200);
};

export const updateKey: Handler<"updateKey"> = async (c) => {
  const key = await requireKey(c, c.req.valid("param").key_uuid);
  const body = c.req.valid("json");
  const updated = await keyOps.updateKey(asOperator(c), key, {
    name: body.name,
    scopes: body.scopes,
    rateLimitMultiplier: body.rate_limit_multiplier,
  });
  return c.json({ success: true as const, key: toPublicKey(updated) }, 200);
};

export const revokeKey: Handler<"revokeKey"> = async (c) => {
  const key = await requireKey(c, c.req.valid("param").key_uuid);
  const revoked = await keyOps.revokeKey(asOperator(c), key);
  return c.json({ success: true as const, key: toPublicKey(revoked) }, 200);
};

export const rotateSecrets: Handler<"rotateSecrets"> = async (c) => {
  const key = await requireKey(c, c.req.valid("param").key_uuid);
  const secrets = await keyOps.rotateSecrets(asOperator(c), key);
  return c.json(
    { success: true as const, access_token: secrets.accessToken, rotate_key: secrets.rotateKey, expires_at: secrets.expiresAt },
    200,
  );
};

export const regenerateRotateKey: Handler<"regenerateRotateKey"> = async (c) => {
  const key = await requireKey(c, c.req.valid("param").key_uuid);
  const { rotateKey } = await keyOps.regenerateRotateKey(asOperator(c), key);
  return c.json({ success: true as const, rotate_key: rotateKey }, 200);
};

export const listSecurityEvents: Handler<"listSecurityEvents"> = async (c) => {
  const key = await requireKey(c, c.req.valid("param").key_uuid);
  const events = await keys.listSecurityEvents(c.var.db, key.id);
  return c.json(
    { success: true as const, events: events.map((e) => ({ type: e.type, ip: e.ip, created_at: e.createdAt })) },
    200,
  );
};

export const createLegacyCalendarToken: Handler<"createLegacyCalendarToken"> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const { key, token } = await keyOps.createLegacyCalendarToken(asOperator(c), agency.id);
  return c.json({ success: true as const, key: toPublicKey(key), token }, 201);
};

export const createMember: Handler<"createMember"> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  // In the directory too: the dashboard-link route names the member alone.
  const id = newId();
  const member = await createWithDirectoryRecord(c.env, c.var.db, { kind: "member", id, agencyId: agency.id }, nowIso(), () =>
    insertMember(c.var.db, agency.id, c.req.valid("json"), id),
  );
  return c.json({ success: true as const, member: toPublicMember(member) }, 201);
};

export const createPathEvent: Handler<"createPathEvent"> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const body = c.req.valid("json");
  await assertKnownPath(c.var.db, agency.id, body.path_uuid);
  const event = await recordPathEvent(c.var.db, agency.id, {
    pathId: body.path_uuid,
    type: body.type,
    step: body.step,
    at: body.at,
  });
  return c.json(
    {
      success: true as const,
      event: { event_uuid: event.id, path_uuid: event.pathId, type: event.type, step: event.step, at: event.occurredAt },
    },
    201,
  );
};
