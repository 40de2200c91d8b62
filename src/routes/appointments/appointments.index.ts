import { createRouter } from "@/lib/create-router";
import * as handlers from "./appointments.handlers";
import * as routes from "./appointments.routes";

export const appointmentsRouter = createRouter()
  .openapi(routes.listAppointments, handlers.listAppointments)
  .openapi(routes.getAppointment, handlers.getAppointment)
  .openapi(routes.updateAppointment, handlers.updateAppointment)
  .openapi(routes.cancelAppointment, handlers.cancelAppointment);
