import type { Env } from "@/env";
import type { Db } from "@/db/client";
import type { Logger } from "@/lib/logger";
import type { RowsReadRecorder } from "@/lib/rows-read";

/** The credential a request was admitted with: an API key, or a connected app's OAuth grant. */
export type CallerCredential = { type: "api_key"; keyId: string } | { type: "app_grant"; grantId: string; clientId: string };

/** Who is calling: resolved from the access token by the guard middleware. */
export interface Caller {
  credential: CallerCredential;
  agencyId: string;
  /** The shard (D1 database) of the agency, as the key's gate last read it from the directory. */
  shard: string;
  scopes: readonly string[];
}

export interface AppBindings {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** The D1 session of the shard the request acts on (middleware/shard-session.ts), once it is known. */
    db: Db;
    logger: Logger;
    caller: Caller;
    /** Sent by the MCP server to a tool's route (lib/auth/mcp-tool-requests.ts), told apart before any middleware replaces the request. */
    mcpToolRequest: boolean;
    /** The `X-D1-Bookmark` the client sent: a bookmark of `shard` (null: of no shard we can tell). */
    bookmark?: { shard: string | null; bookmark: string };
    /** The session behind `db`, whose bookmark the response returns. */
    shardSession?: { shard: string; session: D1DatabaseSession; recorder: RowsReadRecorder | null };
  };
}
