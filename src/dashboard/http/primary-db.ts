import type { MiddlewareHandler } from "hono";
import { createDb } from "@/db/client";
import type { DashboardBindings } from "../dashboard-env";

/**
 * Dashboard requests read from the primary. A browser does not send the D1 bookmark back the
 * way an API client can, and a replica behind the primary could still show a revoked key as
 * active or let an ended session or a removed member in for a moment.
 */
export const primaryDb: MiddlewareHandler<DashboardBindings> = async (c, next) => {
  c.set("db", createDb(c.env.DB.withSession("first-primary")));
  await next();
};
