import { createRouter } from "@/lib/create-router";
import * as handlers from "./calendar.handlers";
import * as routes from "./calendar.routes";

export const calendarRouter = createRouter()
  .openapi(routes.getCalendarHours, handlers.getCalendarHours)
  .openapi(routes.setCalendarHours, handlers.setCalendarHours)
  .openapi(routes.listAvailability, handlers.listAvailability)
  .openapi(routes.createBooking, handlers.createBooking);
