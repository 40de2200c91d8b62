import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { validationHook } from "@/lib/validation";

/** Every router shares the validation hook, so a bad request reads the same everywhere. */
export const createRouter = () => new OpenAPIHono<AppBindings>({ defaultHook: validationHook, strict: true });
