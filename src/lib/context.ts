import type { Env } from "@/env";
import type { Db } from "@/db/client";
import type { Logger } from "@/lib/logger";

/** Who is calling: resolved from the access token by the guard middleware. */
export interface Caller {
  keyId: string;
  agencyId: string;
  scopes: readonly string[];
}

export interface AppBindings {
  Bindings: Env;
  Variables: {
    requestId: string;
    db: Db;
    logger: Logger;
    caller: Caller;
  };
}
