import { z } from "@hono/zod-openapi";
import { boundedInt, instantString, uuidString } from "@/lib/bounded";
import { MAX_PAGE_SIZE, PaginationSchema, paginationQuery, singlePageExample } from "@/lib/pagination";

/** Widgets are made only by the operator API (src/admin/booking-widgets.admin.ts): these repeat its limits. */
export const MAX_WIDGET_NAME_LENGTH = 200;
export const MIN_WIDGET_DURATION_MINUTES = 5;
export const MAX_WIDGET_DURATION_MINUTES = 240;

export const bookingWidgetExample = {
  booking_widget_uuid: "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
  name: "30-minute buyer consultation",
  agent_uuid: null,
  duration_minutes: 30,
  active: true,
  created_at: "2026-11-20T10:00:00.000Z",
};

export const BookingWidget = z
  .object({
    booking_widget_uuid: uuidString().openapi({ description: "Identifier of the widget; pass it as `booking_widget_uuid` when booking." }),
    name: z.string().min(1).max(MAX_WIDGET_NAME_LENGTH),
    agent_uuid: uuidString()
      .nullable()
      .openapi({ description: "The team member whose calendar the widget books; null for the agency calendar." }),
    duration_minutes: boundedInt(MIN_WIDGET_DURATION_MINUTES, MAX_WIDGET_DURATION_MINUTES).openapi({
      description:
        "Length of the meeting the widget offers. A booking through the widget needs it to equal the calendar's slot " +
        "length in force (`slot_minutes` of `GET /calendar/hours`).",
    }),
    active: z.boolean().openapi({
      description: "Only an active widget accepts bookings. False once the widget's team member is removed from the agency.",
    }),
    created_at: instantString(),
  })
  .openapi("BookingWidget", { example: bookingWidgetExample });

export const BookingWidgetListResponse = z
  .object({ success: z.literal(true), booking_widgets: z.array(BookingWidget).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("BookingWidgetListResponse", {
    example: { success: true, booking_widgets: [bookingWidgetExample], pagination: singlePageExample },
  });

export const ListBookingWidgetsQuery = paginationQuery;
