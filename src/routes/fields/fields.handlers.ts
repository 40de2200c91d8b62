import type { Hook, RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { badRequest, notFound } from "@/lib/errors";
import { validationHook } from "@/lib/validation";
import { answeredPage, askedPage } from "@/routes/list-pages";
import * as repo from "@/domain/fields/fields.repository";
import type * as routes from "./fields.routes";
import { fieldMessages, optionTypes } from "@/domain/fields/fields.rules";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

export const listFields: Handler<"listFields"> = async (c) => {
  const query = c.req.valid("query");
  const asked = await askedPage(c, query, repo.fieldOrder);
  const found = await repo.listFields(c.var.db, c.var.caller.agencyId, { includeArchived: query.include_archived, page: asked });
  const { rows, pagination } = await answeredPage(c, asked, found, repo.fieldOrder.keysOf);
  return c.json({ success: true as const, fields: rows.map(repo.toPublicField), pagination }, 200);
};

export const createField: Handler<"createField"> = async (c) => {
  const body = c.req.valid("json");
  const field = await repo.createField(c.var.db, c.var.caller.agencyId, { ...body, options: body.options ?? [] });
  return c.json({ success: true as const, field: repo.toPublicField(field) }, 201);
};

/**
 * `key` and `type` are not in the PATCH schema (so the document does not offer them); a
 * partner who sends them gets a message saying why, instead of a bare "Unknown field".
 */
export const updateFieldHook: Hook<unknown, AppBindings, string, undefined> = (result, c) => {
  if (!result.success && result.target === "json") {
    const sent = result.error.issues.flatMap((issue) => (issue.code === "unrecognized_keys" ? issue.keys : []));
    if (sent.includes("key")) throw badRequest(fieldMessages.keyImmutable);
    if (sent.includes("type")) throw badRequest(fieldMessages.typeImmutable);
  }
  validationHook(result, c);
  return undefined;
};

export const updateField: Handler<"updateField"> = async (c) => {
  const { field_uuid } = c.req.valid("param");
  const body = c.req.valid("json");
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const current = await repo.getLiveField(db, agencyId, field_uuid);
  if (!current) throw notFound(fieldMessages.notFound);
  if (body.options !== undefined && !optionTypes.includes(current.type)) throw badRequest(fieldMessages.optionsNotAllowed);
  if (body.label === undefined && body.options === undefined) {
    return c.json({ success: true as const, field: repo.toPublicField(current) }, 200);
  }
  const updated = await repo.updateField(db, agencyId, current.id, body);
  if (!updated) throw notFound(fieldMessages.notFound);
  return c.json({ success: true as const, field: repo.toPublicField(updated) }, 200);
};

export const deleteField: Handler<"deleteField"> = async (c) => {
  const { field_uuid } = c.req.valid("param");
  const archived = await repo.archiveField(c.var.db, c.var.caller.agencyId, field_uuid);
  if (!archived) throw notFound(fieldMessages.notFound);
  return c.json({ success: true as const, field: repo.toPublicField(archived) }, 200);
};
