import type { Env } from "@/env";
import type { Db } from "@/db/client";
import type { Logger } from "@/lib/logger";
import type { RowsReadRecorder } from "@/db/rows-read";
import type { Caller } from "./caller";
import type { McpToolAdmission } from "./auth/mcp-tool-requests";

export type { Caller, CallerCredential } from "./caller";

export interface AppBindings {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** The D1 session of the shard the request acts on (middleware/shard-session.ts), once it is known. */
    db: Db;
    logger: Logger;
    caller: Caller;
    /**
     * The mark of a request the MCP server sent to a tool's route, with what the /mcp request's gate
     * call decided of it (lib/auth/mcp-tool-requests.ts); read off the request before any middleware
     * replaces it. Absent on every other request.
     */
    mcpToolRequest?: McpToolAdmission;
    /** The `X-D1-Bookmark` the client sent: a bookmark of `shard` (null: of no shard we can tell). */
    bookmark?: { shard: string | null; bookmark: string };
    /** The session behind `db`, whose bookmark the response returns. */
    shardSession?: { shard: string; session: D1DatabaseSession; recorder: RowsReadRecorder | null };
  };
}
