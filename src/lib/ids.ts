import { z } from "@hono/zod-openapi";

export const newId = () => crypto.randomUUID();

/** A path parameter carrying a UUID; a malformed one is a 400 naming the parameter. */
export const uuidParam = (name: string) =>
  z
    .guid({ error: `${name} must be a UUID` })
    .openapi({ param: { name, in: "path" }, example: "3f1c2a9e-8b4d-4c6e-9a1f-2b3c4d5e6f70" });

export const uuidField = (name: string) => z.guid({ error: `${name} must be a UUID` });
