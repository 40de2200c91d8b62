import { z } from "@hono/zod-openapi";
import { isRecord } from "./jsonrpc";

/**
 * The client's name and version, as both eras carry it (`initialize`'s `clientInfo`, the
 * 2026-07-28 envelope's): recognised by hand at no cost, and run through the schema only for
 * the SDK's wording of what is wrong with it.
 */
export const clientInfoSchema = z.object({ name: z.string(), title: z.string().optional(), version: z.string() });

export const isClientInfo = (info: unknown) =>
  isRecord(info) && typeof info.name === "string" && typeof info.version === "string" && (info.title === undefined || typeof info.title === "string");
