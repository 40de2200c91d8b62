import { z, type RouteHandler } from "@hono/zod-openapi";
import { putAgencySecret } from "@/domain/settings/agency-secrets.repository";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-router";
import { jsonBody } from "@/lib/openapi";
import { ERRORS_WITHOUT_CONFLICT, adminJson, adminRoute, agencyParams, requireAgency } from "./admin-route";

const SECRET_NAME = /^[a-z][a-z0-9_.-]{0,63}$/;

const PutSecretBody = z
  .strictObject({
    name: z
      .string()
      .regex(SECRET_NAME, "name must start with a lowercase letter and hold only lowercase letters, digits, _ . - (at most 64 characters)"),
    value: z.string().min(1, "value must be 1 to 10000 characters").max(10_000, "value must be 1 to 10000 characters"),
  })
  .openapi("AdminPutSecret", { example: { name: "google_calendar.refresh_token", value: "1//0g-example-refresh-token" } });

/** What the operator API says about a secret: never its value. */
const Secret = z.object({ name: z.string(), updated_at: z.string() }).openapi("AdminSecret");

const SecretResponse = z.object({ success: z.literal(true), secret: Secret });

export const putSecretRoute = adminRoute(
  {
    method: "post",
    path: "/agencies/{agency_uuid}/secrets",
    operationId: "adminPutSecret",
    summary: "Store an agency secret (OAuth token, provider credential)",
    description:
      "Creates (201) or replaces (200) the secret `name` of the agency. The value is write-only: no operator or Partner " +
      "API response ever contains it; the answer names the secret and when it changed.",
    request: { params: agencyParams, body: jsonBody(PutSecretBody) },
    responses: {
      200: adminJson(SecretResponse, "The secret was replaced."),
      201: adminJson(SecretResponse, "The secret was created."),
    },
  },
  ERRORS_WITHOUT_CONFLICT,
);

const putSecretHandler: RouteHandler<typeof putSecretRoute, AppBindings> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const { name, value } = c.req.valid("json");
  const { created, updatedAt } = await putAgencySecret(c.var.db, agency.id, name, value);
  const body = { success: true as const, secret: { name, updated_at: updatedAt } };
  return created ? c.json(body, 201) : c.json(body, 200);
};

/** Operator rows of agency secrets (there is no operator settings row), mounted under /admin/v1. */
export const settingsAdminRouter = createRouter().openapi(putSecretRoute, putSecretHandler);
