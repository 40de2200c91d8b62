import { createRouter } from "@/lib/create-router";
import * as handlers from "./lead-orders.handlers";
import * as routes from "./lead-orders.routes";

export const leadOrdersRouter = createRouter()
  .openapi(routes.listLeadOrders, handlers.listLeadOrders)
  .openapi(routes.getLeadOrder, handlers.getLeadOrder)
  .openapi(routes.updateLeadOrder, handlers.updateLeadOrder)
  .openapi(routes.pauseLeadOrder, handlers.pauseLeadOrder)
  .openapi(routes.cancelLeadOrder, handlers.cancelLeadOrder);
