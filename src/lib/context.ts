import type { Env } from "@/env";
import type { Db } from "@/db/client";
import type { Logger } from "@/lib/logger";
import type { RowsReadRecorder } from "@/db/rows-read";
import type { Caller } from "./caller";

export type { Caller, CallerCredential } from "./caller";

export interface AppBindings {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** The D1 session of the shard the request acts on (middleware/shard-session.ts), once it is known. */
    db: Db;
    logger: Logger;
    caller: Caller;
    /** The `X-D1-Bookmark` the client sent: a bookmark of `shard` (null: of no shard we can tell). */
    bookmark?: { shard: string | null; bookmark: string };
    /** The session behind `db`, whose bookmark the response returns. */
    shardSession?: { shard: string; session: D1DatabaseSession; recorder: RowsReadRecorder | null };
  };
}
