import type { Env } from "@/env";
import type { AppBindings } from "@/lib/context";
import type { DashboardSession } from "./auth/sessions";
import type { FormFields } from "./http/form";

/** The dashboard's Hono environment: the app's, plus the signed-in session and a POST's parsed form. */
export interface DashboardBindings {
  Bindings: Env;
  Variables: AppBindings["Variables"] & {
    session: DashboardSession;
    form: FormFields;
  };
}
