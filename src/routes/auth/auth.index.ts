import { createRouter } from "@/lib/create-router";
import * as handlers from "./auth.handlers";
import * as routes from "./auth.routes";

export const authRouter = createRouter().openapi(routes.renewToken, handlers.renewToken);
