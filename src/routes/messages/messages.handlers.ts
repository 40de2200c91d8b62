import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { badRequest, notFound } from "@/lib/errors";
import { getLiveContact } from "@/domain/contacts/contacts.repository";
import { answeredPage, askedPage } from "@/routes/list-pages";
import * as repo from "@/domain/messages/messages.repository";
import type * as routes from "./messages.routes";
import { messageMessages } from "./messages.schemas";
import { sendSms } from "@/domain/messages/sms-delivery";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

const messageBody = (row: repo.MessageRow) => ({ success: true as const, message: repo.toPublicMessage(row) });

export const listMessages: Handler<"listMessages"> = async (c) => {
  const query = c.req.valid("query");
  const asked = await askedPage(c, query, repo.messageOrder);
  const filters = { contactId: query.contact_uuid, channel: query.channel, unread: query.unread };
  const found = await repo.listMessages(c.var.db, c.var.caller.agencyId, filters, asked);
  const { rows, pagination } = await answeredPage(c, asked, found, repo.messageOrder.keysOf);
  return c.json({ success: true as const, messages: rows.map(repo.toPublicMessage), pagination }, 200);
};

export const createMessage: Handler<"createMessage"> = async (c) => {
  const body = c.req.valid("json");
  const { db, logger } = c.var;
  const { agencyId } = c.var.caller;
  const contact = await getLiveContact(db, agencyId, body.contact_uuid);
  if (!contact) throw badRequest(messageMessages.unknownContact);
  if (body.channel === "note") {
    const note = await repo.createMessage(db, agencyId, {
      contactId: contact.id,
      channel: "note",
      direction: "internal",
      body: body.body,
      deliveryStatus: null,
      read: true,
    });
    return c.json(messageBody(note), 201);
  }
  if (!contact.phone) throw badRequest(messageMessages.noPhone);
  const sms = await sendSms({ db, queue: c.env.SMS_QUEUE, logger }, agencyId, { contactId: contact.id, to: contact.phone, body: body.body });
  return c.json(messageBody(sms), 201);
};

export const getMessage: Handler<"getMessage"> = async (c) => {
  const message = await repo.getMessage(c.var.db, c.var.caller.agencyId, c.req.valid("param").message_uuid);
  if (!message) throw notFound(messageMessages.notFound);
  return c.json(messageBody(message), 200);
};

export const markMessageRead: Handler<"markMessageRead"> = async (c) => {
  const message = await repo.markRead(c.var.db, c.var.caller.agencyId, c.req.valid("param").message_uuid);
  if (!message) throw notFound(messageMessages.notFound);
  return c.json(messageBody(message), 200);
};

export const markMessageUnread: Handler<"markMessageUnread"> = async (c) => {
  const message = await repo.markUnread(c.var.db, c.var.caller.agencyId, c.req.valid("param").message_uuid);
  if (!message) throw notFound(messageMessages.notFound);
  return c.json(messageBody(message), 200);
};
