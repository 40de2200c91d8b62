import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { badRequest, conflict, notFound } from "@/lib/errors";
import { mergeCustomFields, validateCustomFields } from "@/domain/fields/custom-fields";
import { assertKnownPath } from "@/domain/paths/path-lookup";
import { answeredPage, askedPage } from "@/routes/list-pages";
import { recordPathEvent } from "@/domain/paths/path-events.repository";
import { upsertContacts, type BulkItem } from "@/domain/contacts/contacts-bulk";
import { validationError } from "@/lib/validation";
import * as repo from "@/domain/contacts/contacts.repository";
import type * as routes from "./contacts.routes";
import { contactMessages } from "@/domain/contacts/contacts.rules";
import { BulkContactItem } from "./contacts.schemas";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

const contactBody = (row: repo.ContactRow) => ({ success: true as const, contact: repo.toPublicContact(row) });

export const listContacts: Handler<"listContacts"> = async (c) => {
  const query = c.req.valid("query");
  const asked = await askedPage(c, query, repo.contactOrder);
  const filters = { q: query.q, tag: query.tag, source: query.source, externalId: query.external_id, deleted: query.deleted };
  const found = await repo.listContacts(c.get("db"), c.get("caller").agencyId, filters, asked);
  const { rows, pagination } = await answeredPage(c, asked, found, repo.contactOrder.keysOf);
  return c.json({ success: true as const, contacts: rows.map(repo.toPublicContact), pagination }, 200);
};

export const createContact: Handler<"createContact"> = async (c) => {
  const body = c.req.valid("json");
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  if (body.path_uuid) await assertKnownPath(db, agencyId, body.path_uuid);
  const customFields = body.custom_fields ? mergeCustomFields({}, await validateCustomFields(db, agencyId, body.custom_fields)) : {};
  const contact = await repo.createContact(db, agencyId, {
    firstName: body.first_name,
    lastName: body.last_name,
    email: body.email ?? null,
    phone: body.phone ?? null,
    tags: body.tags ?? [],
    source: body.source ?? null,
    pathId: body.path_uuid ?? null,
    customFields,
    externalId: body.external_id ?? null,
  });
  if (contact.pathId) await recordPathEvent(db, agencyId, { pathId: contact.pathId, type: "lead", contactId: contact.id });
  return c.json(contactBody(contact), 201);
};

export const listContactTags: Handler<"listContactTags"> = async (c) => {
  const tags = await repo.tagCounts(c.var.db, c.var.caller.agencyId);
  return c.json({ success: true as const, tags }, 200);
};

export const listContactSources: Handler<"listContactSources"> = async (c) => {
  const sources = await repo.sourceCounts(c.var.db, c.var.caller.agencyId);
  return c.json({ success: true as const, sources }, 200);
};

export const getContact: Handler<"getContact"> = async (c) => {
  const contact = await repo.getLiveContact(c.var.db, c.var.caller.agencyId, c.req.valid("param").contact_uuid);
  if (!contact) throw notFound(contactMessages.notFound);
  return c.json(contactBody(contact), 200);
};

export const updateContact: Handler<"updateContact"> = async (c) => {
  const { contact_uuid } = c.req.valid("param");
  const body = c.req.valid("json");
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const current = await repo.getLiveContact(db, agencyId, contact_uuid);
  if (!current) throw notFound(contactMessages.notFound);
  if (Object.keys(body).length === 0) return c.json(contactBody(current), 200);
  // An opt-out suppresses the phone the contact has once patched (docs/decisions/sms-opt-out.md).
  const phone = body.phone !== undefined ? body.phone : current.phone;
  if (body.sms_opt_out && phone === null) throw badRequest(contactMessages.optOutNeedsPhone);
  if (body.path_uuid) await assertKnownPath(db, agencyId, body.path_uuid);
  const customFields = body.custom_fields ? await validateCustomFields(db, agencyId, body.custom_fields) : undefined;
  const updated = await repo.updateContact(db, agencyId, current.id, {
    firstName: body.first_name,
    lastName: body.last_name,
    email: body.email,
    phone: body.phone,
    tags: body.tags,
    source: body.source,
    pathId: body.path_uuid,
    customFields,
    externalId: body.external_id,
    optOutNumber: body.sms_opt_out && phone !== null ? phone : undefined,
  });
  if (!updated) throw notFound(contactMessages.notFound);
  return c.json(contactBody(updated), 200);
};

export const deleteContact: Handler<"deleteContact"> = async (c) => {
  const deleted = await repo.softDeleteContact(c.var.db, c.var.caller.agencyId, c.req.valid("param").contact_uuid);
  if (!deleted) throw notFound(contactMessages.notFound);
  return c.json(contactBody(deleted), 200);
};

export const restoreContact: Handler<"restoreContact"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const contact = await repo.getAnyContact(db, agencyId, c.req.valid("param").contact_uuid);
  if (!contact) throw notFound(contactMessages.notFound);
  if (contact.deletedAt === null) throw conflict(contactMessages.notDeleted);
  const restored = await repo.restoreContact(db, agencyId, contact);
  if (!restored) throw conflict(contactMessages.notDeleted);
  return c.json(contactBody(restored), 200);
};

export const bulkUpsertContacts: Handler<"bulkUpsertContacts"> = async (c) => {
  // Each item is checked on its own, so one bad item fails only itself.
  const items = c.req.valid("json").contacts.map((value, index): BulkItem => {
    const parsed = BulkContactItem.safeParse(value);
    return parsed.success ? { index, item: parsed.data } : { index, invalid: validationError(parsed.error).message };
  });
  const results = await upsertContacts(c.var.db, c.var.caller.agencyId, items);
  return c.json({ success: true as const, results }, 200);
};
