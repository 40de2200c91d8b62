import { z, type RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-router";
import { uuidField } from "@/lib/ids";
import { jsonBody } from "@/lib/openapi";
import { resolveTeamMember } from "@/domain/users/team-member";
import { BookingWidget } from "@/routes/booking-widgets/booking-widgets.schemas";
import { createBookingWidget, toPublicBookingWidget } from "@/domain/booking-widgets/booking-widgets.repository";
import { ERRORS_WITHOUT_CONFLICT, adminJson, adminRoute, agencyParams, requireAgency } from "./admin-route";

const DURATION_MESSAGE = "duration_minutes must be a whole number from 5 to 240";

export const CreateBookingWidgetBody = z
  .strictObject({
    name: z.string().trim().min(1, { error: "name must be 1 to 200 characters" }).max(200, { error: "name must be 1 to 200 characters" }),
    agent_uuid: uuidField("agent_uuid").optional(),
    duration_minutes: z
      .number({ error: DURATION_MESSAGE })
      .int({ error: DURATION_MESSAGE })
      .min(5, { error: DURATION_MESSAGE })
      .max(240, { error: DURATION_MESSAGE }),
  })
  .openapi("AdminCreateBookingWidget", { example: { name: "Intro call", duration_minutes: 30 } });

export const createBookingWidgetRoute = adminRoute(
  {
    method: "post",
    path: "/agencies/{agency_uuid}/booking-widgets",
    operationId: "adminCreateBookingWidget",
    summary: "Create a booking widget",
    description:
      "A widget books the calendar of `agent_uuid` (a team member of the agency; otherwise 400) or, without it, the " +
      "agency calendar. Bookings through it need `duration_minutes` to equal that calendar's `slot_minutes`.",
    request: { params: agencyParams, body: jsonBody(CreateBookingWidgetBody) },
    responses: {
      201: adminJson(z.object({ success: z.literal(true), booking_widget: BookingWidget }), "The booking widget, active."),
    },
  },
  ERRORS_WITHOUT_CONFLICT,
);

export const createBookingWidgetHandler: RouteHandler<typeof createBookingWidgetRoute, AppBindings> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const { db } = c.var;
  const body = c.req.valid("json");
  // Null without agent_uuid; a member not of the agency is a 400 from the shared lookup.
  const member = await resolveTeamMember(db, agency.id, { agent_uuid: body.agent_uuid });
  const widget = await createBookingWidget(db, agency.id, {
    name: body.name,
    memberId: member?.id ?? null,
    durationMinutes: body.duration_minutes,
  });
  return c.json({ success: true as const, booking_widget: toPublicBookingWidget(widget) }, 201);
};

/** Operator routes of booking widgets (the dashboard creates them; partners list them). */
export const bookingWidgetsAdminRouter = createRouter().openapi(createBookingWidgetRoute, createBookingWidgetHandler);
