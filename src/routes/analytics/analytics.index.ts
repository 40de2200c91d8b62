import { createRouter } from "@/lib/create-app";
import * as handlers from "./analytics.handlers";
import * as routes from "./analytics.routes";

export const analyticsRouter = createRouter().openapi(routes.getPathAnalytics, handlers.getPathAnalytics);
