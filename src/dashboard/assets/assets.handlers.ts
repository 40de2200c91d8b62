import type { Context } from "hono";
import { COPY_SCRIPT } from "./copy-script";
import { STYLESHEET } from "./stylesheet";

/**
 * Served by the Worker until the dashboard's files move to Workers static assets. Correct
 * Content-Type matters: with `nosniff` (on every response) a browser runs or applies nothing else.
 */
const asset = (body: string, contentType: string) => (c: Context) =>
  c.body(body, 200, { "Content-Type": contentType, "Cache-Control": "public, max-age=300" });

export const copyScript = asset(COPY_SCRIPT, "text/javascript; charset=utf-8");
export const stylesheet = asset(STYLESHEET, "text/css; charset=utf-8");
