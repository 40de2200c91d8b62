import { jsonBody, jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import {
  CreatePathBody,
  ListPathsQuery,
  PathParams,
  PathResponse,
  PathVersionListResponse,
  PathsOrCatalogResponse,
  UpdatePathBody,
  VersionsQuery,
  pathMessages,
} from "./paths.schemas";

const notFoundExample = { 404: { description: "No path with this uuid in your agency.", error: pathMessages.notFound } };
const archivedExample = { 409: { description: "The path is archived.", error: pathMessages.archived } };

const stepRules =
  "Each step has a `key` (unique within the path, 1 to 64 lowercase letters, digits, `_` or `-`), a `type` " +
  "(`question`, `form`, `booking`, `content`), a `title` and an optional `description`; a `question` step needs " +
  "`options` (2 to 20 distinct answers) and a `form` step needs `fields` (`{ key, label, required }`, distinct keys); " +
  "other types take neither.";

export const listPaths = partnerRoute({
  method: "get",
  path: "/paths",
  operationId: "listPaths",
  tags: ["Paths"],
  summary: "List paths",
  description:
    "Lists the agency's paths, newest first, paginated with `page` and `limit`. Archived paths are left out unless " +
    "`status=archived` is asked for. The shape depends on the key's scopes: a key with `paths` (or `*`) gets full " +
    "path records (`PathListResponse`); a key with only `analytics` gets the thin catalog (`PathCatalogResponse`): " +
    "`path_uuid`, `name`, `status` and `published_at`, enough to pick a path for `GET /analytics/paths`.",
  scopes: ["paths", "analytics"],
  request: { query: ListPathsQuery },
  errorExamples: { 400: { error: pathMessages.status } },
  responses: { 200: jsonContent(PathsOrCatalogResponse, "One page of paths, full or thin (see the description).") },
});

export const createPath = partnerRoute({
  method: "post",
  path: "/paths",
  operationId: "createPath",
  tags: ["Paths"],
  summary: "Create path",
  description:
    "Creates a path (funnel) as a `draft` at `version` 1. Only `name` is required; `steps` defaults to an empty " +
    `list. ${stepRules} Publish it with \`POST /paths/{path_uuid}/publish\`.`,
  scopes: ["paths"],
  request: { body: jsonBody(CreatePathBody) },
  errorExamples: { 400: { error: "name is required" } },
  responses: { 201: jsonContent(PathResponse, "The created draft path.") },
});

export const getPath = partnerRoute({
  method: "get",
  path: "/paths/{path_uuid}",
  operationId: "getPath",
  tags: ["Paths"],
  summary: "Get path",
  description:
    "Returns one path with its current draft (`steps`, `version`) and what is live (`published_version`, " +
    "`published_at`). Archived paths are returned too, with `status: archived`.",
  scopes: ["paths"],
  request: { params: PathParams },
  errorExamples: notFoundExample,
  responses: { 200: jsonContent(PathResponse, "The path.") },
});

export const updatePath = partnerRoute({
  method: "patch",
  path: "/paths/{path_uuid}",
  operationId: "updatePath",
  tags: ["Paths"],
  summary: "Update path draft",
  description:
    "Edits the draft: any of `name`, `description` (null clears it) and `steps` (replaces the whole list). Every " +
    "change adds 1 to `version`; an empty body changes nothing. A published path stays live at its " +
    "`published_version` until the draft is published again. " +
    `${stepRules} An archived path cannot be changed (409).`,
  scopes: ["paths"],
  request: { params: PathParams, body: jsonBody(UpdatePathBody) },
  errors: [409],
  errorExamples: { 400: { error: pathMessages.stepKeysUnique("budget") }, ...notFoundExample, ...archivedExample },
  responses: { 200: jsonContent(PathResponse, "The path with its changed draft.") },
});

export const deletePath = partnerRoute({
  method: "delete",
  path: "/paths/{path_uuid}",
  operationId: "deletePath",
  tags: ["Paths"],
  summary: "Delete (archive) path",
  description:
    "Deleting a path archives it, for good: `status` becomes `archived` and `archived_at` is set; it leaves " +
    "`GET /paths` (unless `status=archived`), stops being live, and a new contact, booking or event naming it is 400 " +
    "`Unknown path_uuid`. Its record, version history and analytics stay readable. Archiving it again is 409.",
  scopes: ["paths"],
  request: { params: PathParams },
  errors: [409],
  errorExamples: { ...notFoundExample, 409: { description: "The path is already archived.", error: pathMessages.alreadyArchived } },
  responses: { 200: jsonContent(PathResponse, "The archived path.") },
});

export const publishPath = partnerRoute({
  method: "post",
  path: "/paths/{path_uuid}/publish",
  operationId: "publishPath",
  tags: ["Paths"],
  summary: "Publish path",
  description:
    "Makes the current draft live: copies it into the version history as version `version`, and sets `status: " +
    "published`, `published_version` and `published_at`. The draft needs at least one step (400). Publishing when the " +
    "live version already is the current draft is 409 (edit the draft first), as is publishing an archived path.",
  scopes: ["paths"],
  request: { params: PathParams },
  errorExamples: {
    400: { error: pathMessages.noSteps },
    ...notFoundExample,
    409: { description: "Nothing new to publish, or the path is archived.", error: pathMessages.alreadyPublished(3) },
  },
  responses: { 200: jsonContent(PathResponse, "The published path.") },
});

export const listPathVersions = partnerRoute({
  method: "get",
  path: "/paths/{path_uuid}/versions",
  operationId: "listPathVersions",
  tags: ["Paths"],
  summary: "List published versions",
  description:
    "The publish history of a path: every version ever published, newest first, each with the name, description " +
    "and steps it had when published. Paginated with `page` and `limit`. Empty for a path never published.",
  scopes: ["paths"],
  request: { params: PathParams, query: VersionsQuery },
  errorExamples: notFoundExample,
  responses: { 200: jsonContent(PathVersionListResponse, "One page of published versions.") },
});
