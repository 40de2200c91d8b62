import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSX } from "hono/jsx/jsx-runtime";

/** Renders a page (a hono/jsx element, escaped as it renders) as a complete HTML document. */
export async function render(c: Context, page: JSX.Element, status: ContentfulStatusCode = 200) {
  return c.html(`<!doctype html>${await page.toString()}`, status);
}
