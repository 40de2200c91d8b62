import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { answeredPage, askedPage } from "@/routes/list-pages";
import * as repo from "@/domain/booking-widgets/booking-widgets.repository";
import type * as routes from "./booking-widgets.routes";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

export const listBookingWidgets: Handler<"listBookingWidgets"> = async (c) => {
  const asked = await askedPage(c, c.req.valid("query"), repo.widgetOrder);
  const found = await repo.listBookingWidgets(c.var.db, c.var.caller.agencyId, asked);
  const { rows, pagination } = await answeredPage(c, asked, found, repo.widgetOrder.keysOf);
  return c.json({ success: true as const, booking_widgets: rows.map(repo.toPublicBookingWidget), pagination }, 200);
};
