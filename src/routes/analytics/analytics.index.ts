import { createRouter } from "@/lib/create-router";
import * as handlers from "./analytics.handlers";
import * as routes from "./analytics.routes";

export const analyticsRouter = createRouter().openapi(routes.getPathAnalytics, handlers.getPathAnalytics);
