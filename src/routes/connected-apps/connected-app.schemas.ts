import { z } from "@hono/zod-openapi";
import { instantString, uuidString } from "@/lib/bounded";
import { scopes } from "@/lib/auth/scopes";
import { MAX_CLIENT_ID_LENGTH, MAX_CLIENT_NAME_LENGTH } from "@/domain/auth/app-grants.repository";

/** A grant's id as the OAuth library writes it (16 characters of base64url). */
export const GRANT_ID_LENGTH = 16;

export const connectedAppExample = {
  grant_id: "pV3q8Zr0LmN2xYtA",
  client_id: "https://claude.ai/oauth/mcp-oauth-client-metadata",
  client_name: "Claude",
  client_domain: "claude.ai",
  redirect_host: "claude.ai",
  resource: "https://api.example.com/mcp",
  scopes: ["contacts", "calendar"],
  granted_by: "3f6c2a1e-8b4d-4c7e-9a2f-1d5e8c3b7a90",
  rate_limit_multiplier: 1,
  created_at: "2026-11-21T14:05:00.000Z",
  last_used_at: "2026-11-21T14:06:00.000Z",
  revoked_at: null,
};

/** An app or AI agent an agency connected through OAuth, as events and the operator API show it. */
export const ConnectedApp = z
  .object({
    grant_id: z.string().length(GRANT_ID_LENGTH).openapi({ description: "The grant: what the agency approved for this app. Revoking it ends every token of the grant." }),
    client_id: z.string().max(MAX_CLIENT_ID_LENGTH).openapi({
      description: "The app's OAuth client id: one it registered (dynamic registration), or the URL of its Client ID Metadata Document.",
    }),
    client_name: z.string().max(MAX_CLIENT_NAME_LENGTH).openapi({ description: "The app's name as it gave it when it was approved (self-asserted unless `client_domain` is set)." }),
    client_domain: z.string().max(253).nullable().openapi({ description: "For an app identified by a metadata document URL: that URL's host, a domain the app controls. Null otherwise." }),
    redirect_host: z.string().max(253).openapi({ description: "The host the app receives its authorization codes at, as the consent page showed it." }),
    resource: z.string().max(2048).openapi({ format: "uri", description: "What the app's tokens are for: the Partner API (this origin) or its MCP server (`/mcp`)." }),
    scopes: z.array(z.enum(scopes)).max(scopes.length).openapi({ description: "The scopes the agency granted." }),
    granted_by: uuidString().openapi({ description: "The team member (`agent_uuid`) who approved it." }),
    rate_limit_multiplier: z.number().min(0.01).max(10_000).openapi({ format: "double", description: "Scales every rate limit of the app (set by the platform for high-volume apps); 1 by default." }),
    created_at: instantString().openapi({ description: "When the app first received its tokens." }),
    last_used_at: instantString().nullable().openapi({ description: "When its tokens last reached the API (up to a minute stale); null before the first request." }),
    revoked_at: instantString().nullable().openapi({ description: "When the agency or the platform revoked it; null while it is connected." }),
  })
  .openapi("ConnectedApp", { example: connectedAppExample });
