import type { Context } from "hono";
import { html } from "hono/html";
import type { AppBindings } from "@/lib/context";

/**
 * Static assets of the page (public/, served before the Worker runs). The bundle is copied from
 * the exact @scalar/api-reference version in package.json by scripts/build-assets.mjs; the setup
 * script is ours and must run first.
 */
export const REFERENCE_PAGE_SETUP = "/reference-page.js";
export const SCALAR_BUNDLE = "/scalar/standalone.js";

/**
 * The page's Content-Security-Policy: the strict policy of every HTML page (STRICT_CSP in
 * src/middleware/security-headers.ts) with one exception, inline styles. Scalar is a Vue app
 * styled in JavaScript: its bundle inserts its CSS as <style> elements, Vue renders the theme as
 * a <style> element and sets `style` attributes from templates, and its toast library inserts
 * its own <style>; a nonce would cover only the first of these, and a nonce disables
 * 'unsafe-inline'. Scripts stay 'self' only (no inline script, no eval). Nothing else is needed,
 * as the page's browser test shows: no fonts (withDefaultFonts is off), no workers, no forms.
 * Images stay 'self' for the favicon request browsers make and images in descriptions.
 */
export const REFERENCE_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; " +
  "form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

/**
 * Scalar's options (https://github.com/scalar/scalar/blob/main/documentation/configuration.md),
 * chosen so the page talks to nothing but this origin: no fonts from fonts.scalar.com, no
 * developer toolbar (it uploads the document to Scalar's registry), no "Ask AI" agent or MCP
 * offer (both call api.scalar.com), no "Open API Client" link (it hands the document's URL to
 * client.scalar.com), no telemetry. "Test Request" still works: it calls the API on this origin
 * directly (no proxy is configured, and connect-src would refuse one).
 */
const SCALAR_CONFIGURATION = {
  withDefaultFonts: false,
  showDeveloperTools: "never",
  hideClientButton: true,
  agent: { disabled: true },
  mcp: { disabled: true },
  telemetry: false,
};

/**
 * The API reference page. Scalar's standalone bundle reads the document URL and its options
 * from the data attributes of `#api-reference`, here a JSON data block rather than a script, so
 * the page has no inline script at all.
 */
export function referencePage(documentUrl: string, title: string) {
  return (c: Context<AppBindings>) => {
    c.header("Content-Security-Policy", REFERENCE_PAGE_CSP);
    return c.html(html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title}</title>
  </head>
  <body>
    <script id="api-reference" type="application/json" data-url="${documentUrl}" data-configuration="${JSON.stringify(SCALAR_CONFIGURATION)}"></script>
    <script src="${REFERENCE_PAGE_SETUP}"></script>
    <script src="${SCALAR_BUNDLE}"></script>
  </body>
</html>
`);
  };
}
