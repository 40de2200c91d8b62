import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "@/lib/errors";
import { isAgencyMovingError, writesPausedMessage } from "@/lib/shards/agency-moving";
import type { DashboardBindings } from "@/dashboard/http/dashboard-env";
import { render } from "../http/render";
import { MessagePage, pageMessages } from "../pages/message-page";

type Ctx = Context<DashboardBindings>;

export const notFoundPage = (c: Ctx) => render(c, <MessagePage title="Not found" message={pageMessages.notFound} session={c.get("session")} />, 404);

/**
 * The dashboard's one error path, as pages rather than the API's JSON: a missing record (or
 * another agency's) is the 404 page; another refusal shows its message; anything unexpected is
 * logged and shown as a plain 500 page, never a stack trace.
 */
export const onDashboardError: ErrorHandler<DashboardBindings> = (error, c) => {
  if (error instanceof ApiError && error.status === 404) return notFoundPage(c);
  if (isAgencyMovingError(error)) return render(c, <MessagePage title="Please try again shortly" message={writesPausedMessage} session={c.get("session")} />, 503);
  if (error instanceof ApiError) for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  if (error instanceof HTTPException && error.status < 500) {
    return render(c, <MessagePage title="Request refused" message={error.message} session={c.get("session")} />, error.status as ContentfulStatusCode);
  }
  c.var.logger?.error("dashboard error", { error: error.message, stack: error.stack });
  return render(c, <MessagePage title="Something went wrong" message={pageMessages.internal} />, 500);
};
