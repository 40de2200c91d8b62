import { jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import { BookingWidgetListResponse, ListBookingWidgetsQuery } from "./booking-widgets.schemas";

export const listBookingWidgets = partnerRoute({
  method: "get",
  path: "/booking-widgets",
  operationId: "listBookingWidgets",
  tags: ["Booking widgets"],
  summary: "List booking widgets",
  description:
    "Lists the agency's booking widgets, newest first, active and inactive. Widgets are set up by the agency in its " +
    "dashboard. Pass a widget's `booking_widget_uuid` to `POST /calendar/bookings` to book through it: the booking " +
    "goes to the widget's team member's calendar (or the agency calendar) and takes the widget's name as its default " +
    "title. `active` is false for a widget whose team member was removed from the agency (from the moment of the " +
    "removal) or that the agency turned off; booking through an inactive widget is 409. A booking through a widget " +
    "whose `duration_minutes` differs from the calendar's slot length in force (its `slot_minutes`, or the agency's " +
    "`booking.default_slot_minutes` from `GET /settings` for hours set without one) is 400. Paginated with `page` and " +
    "`limit`.",
  scopes: ["appointments"],
  request: { query: ListBookingWidgetsQuery },
  responses: { 200: jsonContent(BookingWidgetListResponse, "One page of booking widgets.") },
});
