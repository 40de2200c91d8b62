import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { paginationOf } from "@/lib/pagination";
import * as repo from "./booking-widgets.repository";
import type * as routes from "./booking-widgets.routes";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

export const listBookingWidgets: Handler<"listBookingWidgets"> = async (c) => {
  const { page, limit } = c.req.valid("query");
  const { rows, total } = await repo.listBookingWidgets(c.var.db, c.var.caller.agencyId, { page, limit });
  return c.json(
    {
      success: true as const,
      booking_widgets: rows.map(repo.toPublicBookingWidget),
      pagination: paginationOf({ page, limit }, total),
    },
    200,
  );
};
