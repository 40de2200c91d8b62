import { z, type RouteHandler } from "@hono/zod-openapi";
import { createRouter } from "@/lib/create-router";
import type { AppBindings } from "@/lib/context";
import { badRequest } from "@/lib/errors";
import { jsonBody } from "@/lib/openapi";
import { getLiveContact } from "@/domain/contacts/contacts.repository";
import * as messages from "@/domain/messages/messages.repository";
import { AdminCreateMessageBody, Message, messageMessages } from "@/routes/messages/messages.schemas";
import { adminJson, adminRoute, agencyParams, requireAgency } from "./admin-route";

export const createMessage = adminRoute({
  method: "post",
  path: "/agencies/{agency_uuid}/messages",
  operationId: "adminCreateMessage",
  summary: "Record a message (simulates an inbound SMS)",
  description:
    "Stores a message on a live contact of the agency as the SMS webhook or the dashboard saw it. `sms` takes " +
    "`inbound` or `outbound`, `note` takes `internal`. Inbound messages arrive unread; the others start read. " +
    "Nothing is sent.",
  request: { params: agencyParams, body: jsonBody(AdminCreateMessageBody) },
  responses: { 201: adminJson(z.object({ success: z.literal(true), message: Message }), "The message.") },
});

export const createMessageHandler: RouteHandler<typeof createMessage, AppBindings> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const { db } = c.var;
  const body = c.req.valid("json");
  const contact = await getLiveContact(db, agency.id, body.contact_uuid);
  if (!contact) throw badRequest(messageMessages.unknownContact);
  const message = await messages.createMessage(db, agency.id, {
    contactId: contact.id,
    channel: body.channel,
    direction: body.direction,
    body: body.body,
    // Recorded, not sent: an outbound SMS seen by the operator already left the building.
    deliveryStatus: body.direction === "outbound" ? "sent" : null,
    read: body.direction !== "inbound",
  });
  return c.json({ success: true as const, message: messages.toPublicMessage(message) }, 201);
};

/** Operator rows of the messages resource, mounted under /admin/v1. */
export const messagesAdminRouter = createRouter().openapi(createMessage, createMessageHandler);
