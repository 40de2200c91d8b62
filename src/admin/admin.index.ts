import { createRouter } from "@/lib/create-router";
import { strictQueryValidator } from "@/lib/strict-query";
import { adminAuth } from "./admin-auth";
import { ADMIN_BEARER } from "./admin-route";
import * as handlers from "./admin.handlers";
import * as routes from "./admin.routes";
import { voiceAdminRouter } from "./voice.admin";
import { bookingWidgetsAdminRouter } from "./booking-widgets.admin";
import { messagesAdminRouter } from "./messages.admin";
import { leadOrdersAdminRouter } from "./lead-orders.admin";
import { settingsAdminRouter } from "./settings.admin";
import { dashboardLinksAdminRouter } from "./dashboard-links.admin";
import { shardsAdminRouter } from "./shards.admin";
import { grantsAdminRouter } from "./grants.admin";
import { directoryAdminRouter } from "./directory.admin";

const router = createRouter();
router.openAPIRegistry.registerComponent("securitySchemes", ADMIN_BEARER, { type: "http", scheme: "bearer" });

router
  .openapi(routes.createAgency, handlers.createAgency)
  .openapi(routes.listAgencies, handlers.listAgencies)
  .openapi(routes.createKey, handlers.createKey)
  .openapi(routes.listKeys, handlers.listKeys)
  .openapi(routes.updateKey, handlers.updateKey)
  .openapi(routes.revokeKey, handlers.revokeKey)
  .openapi(routes.rotateSecrets, handlers.rotateSecrets)
  .openapi(routes.regenerateRotateKey, handlers.regenerateRotateKey)
  .openapi(routes.listSecurityEvents, handlers.listSecurityEvents)
  .openapi(routes.createLegacyCalendarToken, handlers.createLegacyCalendarToken)
  .openapi(routes.createMember, handlers.createMember)
  .openapi(routes.createPathEvent, handlers.createPathEvent);
router.route("/", messagesAdminRouter);
router.route("/", bookingWidgetsAdminRouter);
router.route("/", leadOrdersAdminRouter);
router.route("/", settingsAdminRouter);
router.route("/", voiceAdminRouter);
router.route("/", dashboardLinksAdminRouter);
router.route("/", shardsAdminRouter);
router.route("/", grantsAdminRouter);
router.route("/", directoryAdminRouter);

let document: ReturnType<typeof router.getOpenAPIDocument> | undefined;
router.get("/openapi.json", adminAuth, strictQueryValidator(), (c) =>
  c.json(
    (document ??= router.getOpenAPIDocument({
      openapi: "3.0.3",
      info: { title: "Partner API operator API", version: "1.0.0", description: "The agency dashboard's backend." },
      servers: [{ url: "/admin/v1" }],
    })),
  ),
);

/** The operator API (dashboard backend), mounted at /admin/v1. */
export const adminRouter = router;
