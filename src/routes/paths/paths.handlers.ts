import type { RouteHandler } from "@hono/zod-openapi";
import { hasAnyScope } from "@/lib/auth/scopes";
import type { AppBindings } from "@/lib/context";
import { badRequest, conflict, notFound } from "@/lib/errors";
import { answeredPage, askedPage } from "@/routes/list-pages";
import * as repo from "@/domain/paths/paths.repository";
import type * as routes from "./paths.routes";
import { pathMessages } from "./paths.schemas";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

const pathBody = (row: repo.PathRow) => ({ success: true as const, path: repo.toPublicPath(row) });

export const listPaths: Handler<"listPaths"> = async (c) => {
  const query = c.req.valid("query");
  const asked = await askedPage(c, query, repo.pathOrder);
  const found = await repo.listPaths(c.var.db, c.var.caller.agencyId, { status: query.status }, asked);
  const { rows, pagination } = await answeredPage(c, asked, found, repo.pathOrder.keysOf);
  // The route admits `paths` or `analytics`; only `paths` (or `*`) sees the full records.
  if (hasAnyScope(c.var.caller.scopes, ["paths"])) {
    return c.json({ success: true as const, paths: rows.map(repo.toPublicPath), pagination }, 200);
  }
  return c.json({ success: true as const, paths: rows.map(repo.toCatalogEntry), pagination }, 200);
};

export const createPath: Handler<"createPath"> = async (c) => {
  const body = c.req.valid("json");
  const path = await repo.createPath(c.var.db, c.var.caller.agencyId, {
    name: body.name,
    description: body.description || null,
    steps: body.steps ?? [],
  });
  return c.json(pathBody(path), 201);
};

export const getPath: Handler<"getPath"> = async (c) => {
  const path = await repo.getPath(c.var.db, c.var.caller.agencyId, c.req.valid("param").path_uuid);
  if (!path) throw notFound(pathMessages.notFound);
  return c.json(pathBody(path), 200);
};

export const updatePath: Handler<"updatePath"> = async (c) => {
  const { path_uuid } = c.req.valid("param");
  const body = c.req.valid("json");
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const current = await repo.getPath(db, agencyId, path_uuid);
  if (!current) throw notFound(pathMessages.notFound);
  if (current.deletedAt !== null) throw conflict(pathMessages.archived);
  if (body.name === undefined && body.description === undefined && body.steps === undefined) return c.json(pathBody(current), 200);
  const updated = await repo.updateDraft(db, agencyId, current.id, {
    name: body.name,
    description: body.description === undefined ? undefined : body.description || null,
    steps: body.steps,
  });
  // Archived between the read and the write.
  if (!updated) throw conflict(pathMessages.archived);
  return c.json(pathBody(updated), 200);
};

export const deletePath: Handler<"deletePath"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const current = await repo.getPath(db, agencyId, c.req.valid("param").path_uuid);
  if (!current) throw notFound(pathMessages.notFound);
  const archived = current.deletedAt === null ? await repo.archivePath(db, agencyId, current.id) : undefined;
  if (!archived) throw conflict(pathMessages.alreadyArchived);
  return c.json(pathBody(archived), 200);
};

export const publishPath: Handler<"publishPath"> = async (c) => {
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const current = await repo.getPath(db, agencyId, c.req.valid("param").path_uuid);
  if (!current) throw notFound(pathMessages.notFound);
  if (current.deletedAt !== null) throw conflict(pathMessages.archived);
  if (current.steps.length === 0) throw badRequest(pathMessages.noSteps);
  if (current.publishedVersion === current.version) throw conflict(pathMessages.alreadyPublished(current.version));
  const published = await repo.publishDraft(db, agencyId, current.id);
  if (published) return c.json(pathBody(published), 200);
  // Lost a race: another publish of this revision won, or the path was archived meanwhile.
  const now = await repo.getPath(db, agencyId, current.id);
  if (!now || now.deletedAt !== null) throw conflict(pathMessages.archived);
  throw conflict(pathMessages.alreadyPublished(now.publishedVersion ?? current.version));
};

export const listPathVersions: Handler<"listPathVersions"> = async (c) => {
  const { path_uuid } = c.req.valid("param");
  const asked = await askedPage(c, c.req.valid("query"), repo.versionOrder);
  const { found, ...versions } = await repo.listVersions(c.var.db, c.var.caller.agencyId, path_uuid, asked);
  if (!found) throw notFound(pathMessages.notFound);
  const { rows, pagination } = await answeredPage(c, asked, versions, repo.versionOrder.keysOf);
  return c.json({ success: true as const, versions: rows.map(repo.toPublicVersion), pagination }, 200);
};
