import { z, type RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-app";
import { uuidParam } from "@/lib/ids";
import { issueSignInLink } from "@/dashboard/auth/sign-in-links";
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
  const { url, expiresAt } = await issueSignInLink(c.var.db, c.env, c.req.valid("param").agent_uuid, new URL(c.req.url).origin);
  return c.json({ success: true as const, url, expires_at: expiresAt }, 201);
};

/** Dashboard sign-in links, mounted on the operator router (admin.index.ts). */
export const dashboardLinksAdminRouter = createRouter().openapi(createDashboardLink, createDashboardLinkHandler);
