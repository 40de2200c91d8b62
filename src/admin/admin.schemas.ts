import { z } from "@hono/zod-openapi";
import { keyMessages, mayNeverExpire } from "@/domain/auth/key-operations";
import { grantedScopeValues } from "@/lib/auth/scopes";
import { memberRoles, pathEventTypes, shardRegions } from "@/db/schema";
import { isIanaTimezone } from "@/lib/time";
import { uuidField } from "@/lib/ids";

const timezoneField = z
  .string()
  .max(64)
  .refine(isIanaTimezone, { message: "timezone must be an IANA time zone such as America/New_York" });

export const ShardRegion = z.enum(shardRegions).openapi({
  description: "A D1 location hint (`wnam`, `enam`, `weur`, `eeur`, `apac`, `oc`) or the `eu` jurisdiction.",
});

/** A shard is a D1 binding of the Worker: `DB` or `DB_<NAME>`. */
export const shardName = z
  .string()
  .max(64)
  .regex(/^DB(?:_[A-Z0-9][A-Z0-9_]{0,60})?$/, "shard must be a binding name: DB or DB_<NAME> (capital letters, digits, _)");

export const CreateAgencyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    timezone: timezoneField,
    region: ShardRegion.optional().openapi({ description: "Place the agency on the least full open shard of this region." }),
    shard: shardName.optional().openapi({ description: "Place the agency on this shard (open or closed), instead of choosing by region." }),
  })
  .refine((b) => !(b.region && b.shard), { message: "Give region or shard, not both", path: ["shard"] })
  .openapi("AdminCreateAgency", { example: { name: "Acme Realty", timezone: "America/New_York", region: "enam" } });

export const Agency = z
  .object({
    agency_uuid: z.string(),
    name: z.string(),
    timezone: z.string(),
    shard: z.string().openapi({ description: "The shard (D1 database) holding the agency's records." }),
    region: ShardRegion.nullable().openapi({ description: "The shard's region; null when the shard's region is not recorded." }),
    sms_number: z.string().nullable().openapi({ description: "The agency's SMS sender number (E.164): outbound texts come from it and inbound texts to it reach the agency. Null until assigned." }),
    created_at: z.string(),
  })
  .openapi("AdminAgency");

const scopeList = z
  .array(z.enum(grantedScopeValues))
  .min(1, { message: "scopes must list at least one scope" })
  .max(grantedScopeValues.length)
  .refine((s) => new Set(s).size === s.length, { message: "scopes must not repeat" });

/** How far the operator may scale a key's or a connected app's rate limits. */
export const rateLimitMultiplier = z.number().min(0.01).max(10_000);

export const CreateKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    scopes: scopeList,
    expires: z.boolean().default(true),
    expires_at: z.iso.datetime({ offset: true }).optional(),
    rate_limit_multiplier: rateLimitMultiplier.optional(),
  })
  .refine((b) => b.expires || mayNeverExpire(b.scopes), {
    message: keyMessages.neverExpires,
    path: ["expires"],
  })
  .refine((b) => b.expires || b.expires_at === undefined, {
    message: "expires_at cannot be set on a non-expiring key",
    path: ["expires_at"],
  })
  .openapi("AdminCreateKey", { example: { name: "CRM sync", scopes: ["contacts", "fields"] } });

export const UpdateKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    scopes: scopeList.optional(),
    rate_limit_multiplier: rateLimitMultiplier.optional(),
  })
  .openapi("AdminUpdateKey", { example: { scopes: ["contacts"] } });

export const ApiKey = z
  .object({
    key_uuid: z.string(),
    agency_uuid: z.string(),
    name: z.string(),
    kind: z.enum(["standard", "legacy_calendar"]),
    scopes: z.array(z.string()),
    expires_at: z.string().nullable(),
    rate_limit_multiplier: z.number(),
    revoked_at: z.string().nullable(),
    last_used_at: z
      .string()
      .nullable()
      .openapi({ description: "When the key last authenticated a request, up to a minute stale (written at most once a minute); null if never." }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("AdminApiKey");

export const CreateMemberBody = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    email: z.email().max(254).transform((e) => e.toLowerCase()),
    role: z.enum(memberRoles),
  })
  .openapi("AdminCreateMember", { example: { name: "Dana Agent", email: "dana@example.com", role: "agent" } });

export const Member = z
  .object({
    agent_uuid: z.string(),
    name: z.string(),
    email: z.string(),
    role: z.enum(memberRoles),
    created_at: z.string(),
  })
  .openapi("AdminMember");

export const CreatePathEventBody = z
  .strictObject({
    path_uuid: uuidField("path_uuid"),
    type: z.enum(pathEventTypes),
    step: z.string().trim().min(1).max(100).optional(),
    at: z.iso.datetime({ offset: true }).optional(),
  })
  .openapi("AdminCreatePathEvent", { example: { path_uuid: "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70", type: "view", step: "intro" } });

export const PathEvent = z
  .object({
    event_uuid: z.string(),
    path_uuid: z.string(),
    type: z.enum(pathEventTypes),
    step: z.string().nullable(),
    at: z.string(),
  })
  .openapi("AdminPathEvent");
