import { z, type RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-router";
import { uuidParam } from "@/lib/ids";
import { recordLocation } from "@/db/shards";
import { issueSignInLink, signInMessages } from "@/domain/auth/sign-in-links";
import { notFound } from "@/lib/errors";
import { useShard } from "@/middleware/shard-session";
import { adminJson, adminRoute } from "./admin-route";

export const createDashboardLink = adminRoute({
  method: "post",
  path: "/members/{agent_uuid}/dashboard-links",
  operationId: "adminCreateDashboardLink",
  summary: "Issue a one-time sign-in link to the agency dashboard",
  description:
    "For a live `owner` or `admin` member. The link starts a 12-hour dashboard session when opened, works once and " +
    "expires after 15 minutes; only its hash is stored, so it cannot be shown again. The platform's own app calls this " +
    "to hand a signed-in user over. A removed member or one whose role is `agent` is 409; an unknown member 404.",
  request: { params: z.object({ agent_uuid: uuidParam("agent_uuid") }) },
  responses: {
    201: adminJson(
      z.object({
        success: z.literal(true),
        url: z.string().openapi({ description: "`<this server's origin>/dashboard/sign-in/<secret>`: send it to the member only." }),
        expires_at: z.string(),
      }),
      "The link.",
    ),
  },
});

const createDashboardLinkHandler: RouteHandler<typeof createDashboardLink, AppBindings> = async (c) => {
  const memberId = c.req.valid("param").agent_uuid.toLowerCase();
  const location = await recordLocation(c.env, "member", memberId);
  if (!location) throw notFound(signInMessages.memberNotFound);
  const db = useShard(c, location.shard, "primary");
  const { url, expiresAt } = await issueSignInLink(db, c.env, memberId, new URL(c.req.url).origin);
  return c.json({ success: true as const, url, expires_at: expiresAt }, 201);
};

/** Dashboard sign-in links, mounted on the operator router (admin.index.ts). */
export const dashboardLinksAdminRouter = createRouter().openapi(createDashboardLink, createDashboardLinkHandler);
