/**
 * The request again, with the body bytes already read. The body limits read a JSON body before
 * any handler (Hono keeps the bytes, but the original stream is spent), so a handler that passes
 * the request on to a library (the OAuth server, the MCP SDK) hands it this copy.
 */
export const withBody = (request: Request, body: ArrayBuffer | undefined) =>
  new Request(request.url, { method: request.method, headers: request.headers, body });
