import type { Context } from "hono";
import type { Env } from "@/env";
import type { Actor } from "@/domain/audit/audit-log";
import type { AppBindings } from "@/lib/context";
import type { DashboardSession } from "@/domain/auth/dashboard-sessions";
import type { FormFields } from "./form";

/** The dashboard's Hono environment: the app's, plus the signed-in session and a POST's parsed form. */
export interface DashboardBindings {
  Bindings: Env;
  Variables: AppBindings["Variables"] & {
    session: DashboardSession;
    form: FormFields;
    /** The one other origin the page's form may lead to (http/page-headers.ts): the consent page's app. */
    formTarget?: string;
  };
}

/** The signed-in member, as the actor of a change made from the dashboard (in its audit entry). */
export const memberActor = (c: Context<DashboardBindings>): Actor => ({ type: "member", memberId: c.var.session.memberId });
