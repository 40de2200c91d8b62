import type { MiddlewareHandler } from "hono";
import { timingSafeEqual } from "@/lib/crypto";
import type { DashboardBindings } from "@/dashboard/http/dashboard-env";
import type { FormFields } from "../http/form";
import { render } from "../http/render";
import { CSRF_FIELD } from "../pages/components";
import { MessagePage } from "../pages/message-page";

export const csrfMessages = {
  origin: "This form was sent from another site, so it was refused. Nothing was changed.",
  token: "This form has expired or did not come from this dashboard, so it was refused. Nothing was changed. Reload the page and try again.",
} as const;

const refuse = (c: Parameters<MiddlewareHandler<DashboardBindings>>[0], message: string) =>
  render(c, MessagePage({ title: "Request refused", message }), 403);

/**
 * A POST whose `Origin` is present and not this origin is refused before anything is read:
 * browsers send it on every cross-site form post.
 */
export const sameOrigin: MiddlewareHandler<DashboardBindings> = async (c, next) => {
  const origin = c.req.header("Origin");
  if (origin !== undefined && origin !== new URL(c.req.url).origin) return refuse(c, csrfMessages.origin);
  await next();
};

/**
 * The synchronizer token: every form carries the session's CSRF token, compared in constant
 * time. Runs after `requireSession`; parses the form once for the handler (`c.var.form`).
 */
export const csrfToken: MiddlewareHandler<DashboardBindings> = async (c, next) => {
  const form = (await c.req.parseBody({ all: true })) as FormFields;
  const sent = form[CSRF_FIELD];
  if (typeof sent !== "string" || !timingSafeEqual(sent, c.var.session.csrfToken)) return refuse(c, csrfMessages.token);
  c.set("form", form);
  await next();
};
