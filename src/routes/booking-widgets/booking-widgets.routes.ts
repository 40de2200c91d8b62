import { jsonContent, partnerRoute } from "@/lib/openapi";
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
    "goes to the widget's team member's calendar (or the agency calendar), takes the widget's name as its default " +
    "title, and is refused (400) if the widget is inactive or its `duration_minutes` differs from the calendar's " +
    "`slot_minutes`. Paginated with `page` and `limit`.",
  scopes: ["appointments"],
  request: { query: ListBookingWidgetsQuery },
  responses: { 200: jsonContent(BookingWidgetListResponse, "One page of booking widgets.") },
});
