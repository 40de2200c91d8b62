import { createRouter } from "@/lib/create-router";
import * as handlers from "./booking-widgets.handlers";
import * as routes from "./booking-widgets.routes";

export const bookingWidgetsRouter = createRouter().openapi(routes.listBookingWidgets, handlers.listBookingWidgets);
