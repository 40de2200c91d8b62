import { z } from "@hono/zod-openapi";
import { jsonBody } from "@/lib/openapi";
import { adminJson, adminRoute, agencyParams, keyParams } from "./admin-route";
import * as s from "./admin.schemas";

const success = z.literal(true);
const keyWithSecrets = z.object({ success, key: s.ApiKey, access_token: z.string(), rotate_key: z.string() });

export const createAgency = adminRoute({
  method: "post",
  path: "/agencies",
  operationId: "adminCreateAgency",
  summary: "Create an agency",
  request: { body: jsonBody(s.CreateAgencyBody) },
  responses: { 201: adminJson(z.object({ success, agency: s.Agency }), "The agency.") },
});

export const listAgencies = adminRoute({
  method: "get",
  path: "/agencies",
  operationId: "adminListAgencies",
  summary: "List agencies",
  responses: { 200: adminJson(z.object({ success, agencies: z.array(s.Agency) }), "All agencies, oldest first.") },
});

export const createKey = adminRoute({
  method: "post",
  path: "/agencies/{agency_uuid}/keys",
  operationId: "adminCreateKey",
  summary: "Create an API key",
  description: "Returns the access token and rotate key once; only their hashes are stored.",
  request: { params: agencyParams, body: jsonBody(s.CreateKeyBody) },
  responses: { 201: adminJson(keyWithSecrets, "The key and its secrets.") },
});

export const listKeys = adminRoute({
  method: "get",
  path: "/agencies/{agency_uuid}/keys",
  operationId: "adminListKeys",
  summary: "List an agency's keys",
  request: { params: agencyParams },
  responses: { 200: adminJson(z.object({ success, keys: z.array(s.ApiKey) }), "Keys, newest first.") },
});

export const updateKey = adminRoute({
  method: "patch",
  path: "/keys/{key_uuid}",
  operationId: "adminUpdateKey",
  summary: "Rename a key, edit its scopes or rate-limit multiplier",
  request: { params: keyParams, body: jsonBody(s.UpdateKeyBody) },
  responses: { 200: adminJson(z.object({ success, key: s.ApiKey }), "The key.") },
});

export const revokeKey = adminRoute({
  method: "post",
  path: "/keys/{key_uuid}/revoke",
  operationId: "adminRevokeKey",
  summary: "Revoke a key",
  request: { params: keyParams },
  responses: { 200: adminJson(z.object({ success, key: s.ApiKey }), "The revoked key.") },
});

export const rotateSecrets = adminRoute({
  method: "post",
  path: "/keys/{key_uuid}/rotate-secrets",
  operationId: "adminRotateSecrets",
  summary: "Rotate both secrets",
  request: { params: keyParams },
  responses: {
    200: adminJson(z.object({ success, access_token: z.string(), rotate_key: z.string(), expires_at: z.string().nullable() }), "New secrets."),
  },
});

export const regenerateRotateKey = adminRoute({
  method: "post",
  path: "/keys/{key_uuid}/regenerate-rotate-key",
  operationId: "adminRegenerateRotateKey",
  summary: "Regenerate the rotate key",
  request: { params: keyParams },
  responses: { 200: adminJson(z.object({ success, rotate_key: z.string() }), "The new rotate key.") },
});

export const listSecurityEvents = adminRoute({
  method: "get",
  path: "/keys/{key_uuid}/security-events",
  operationId: "adminListSecurityEvents",
  summary: "Security events of a key (replayed rotate keys)",
  request: { params: keyParams },
  responses: {
    200: adminJson(
      z.object({ success, events: z.array(z.object({ type: z.string(), ip: z.string().nullable(), created_at: z.string() })) }),
      "Events, newest first.",
    ),
  },
});

export const createLegacyCalendarToken = adminRoute({
  method: "post",
  path: "/agencies/{agency_uuid}/legacy-calendar-tokens",
  operationId: "adminCreateLegacyCalendarToken",
  summary: "Create a legacy calendar token",
  request: { params: agencyParams },
  responses: { 201: adminJson(z.object({ success, key: s.ApiKey, token: z.string() }), "The token, shown once.") },
});

export const createMember = adminRoute({
  method: "post",
  path: "/agencies/{agency_uuid}/members",
  operationId: "adminCreateMember",
  summary: "Add a team member",
  request: { params: agencyParams, body: jsonBody(s.CreateMemberBody) },
  responses: { 201: adminJson(z.object({ success, member: s.Member }), "The member.") },
});

export const createPathEvent = adminRoute({
  method: "post",
  path: "/agencies/{agency_uuid}/path-events",
  operationId: "adminCreatePathEvent",
  summary: "Record a path event from a hosted path",
  request: { params: agencyParams, body: jsonBody(s.CreatePathEventBody) },
  responses: { 201: adminJson(z.object({ success, event: s.PathEvent }), "The event.") },
});
