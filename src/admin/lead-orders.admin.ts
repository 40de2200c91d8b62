import { z, type RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-router";
import { jsonBody } from "@/lib/openapi";
import { createLeadOrder, toPublicLeadOrder } from "@/domain/lead-orders/lead-orders.repository";
import { LeadOrder, dailyMaxField, orderNameField, statesField } from "@/routes/lead-orders/lead-orders.schemas";
import { ERRORS_WITHOUT_CONFLICT, adminJson, adminRoute, agencyParams, requireAgency } from "./admin-route";

const CreateLeadOrderBody = z
  .strictObject({ name: orderNameField, daily_max: dailyMaxField, states: statesField })
  .openapi("AdminCreateLeadOrder", { example: { name: "Texas buyers", daily_max: 25, states: ["TX"] } });

export const createLeadOrderRoute = adminRoute(
  {
    method: "post",
    path: "/agencies/{agency_uuid}/lead-orders",
    operationId: "adminCreateLeadOrder",
    summary: "Create a lead order (bought in the dashboard)",
    description: "The order starts `active` with `delivered_count` 0; `daily_max` and `states` follow the Partner API's PATCH rules.",
    request: { params: agencyParams, body: jsonBody(CreateLeadOrderBody) },
    responses: { 201: adminJson(z.object({ success: z.literal(true), lead_order: LeadOrder }), "The lead order.") },
  },
  ERRORS_WITHOUT_CONFLICT,
);

const createLeadOrderHandler: RouteHandler<typeof createLeadOrderRoute, AppBindings> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const body = c.req.valid("json");
  const order = await createLeadOrder(c.var.db, agency.id, { name: body.name, dailyMax: body.daily_max, states: body.states });
  return c.json({ success: true as const, lead_order: toPublicLeadOrder(order) }, 201);
};

/** Operator rows of lead orders, mounted under /admin/v1. */
export const leadOrdersAdminRouter = createRouter().openapi(createLeadOrderRoute, createLeadOrderHandler);
