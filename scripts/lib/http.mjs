/** Thrown when the server cannot be reached at all (nothing listening, DNS, ...). */
export class UnreachableError extends Error {}

/**
 * One JSON request. Resolves with the status and parsed body for every HTTP answer
 * (2xx or not); rejects with UnreachableError only when no answer came back.
 */
export async function requestJson(baseUrl, method, path, { token, body, headers = {} } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const url = `${baseUrl.replace(/\/+$/, "")}${path}`;
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new UnreachableError(`Cannot reach ${url}: ${error.cause?.code ?? error.cause?.message ?? error.message}`);
  }
  const text = await response.text();
  let parsed = text;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    // Not JSON: keep the text so the caller can show it.
  }
  return { status: response.status, ok: response.ok, body: parsed, headers: response.headers };
}

/** The server's error message from the error envelope (docs/decisions/response-conventions.md), or a fallback naming the status. */
export function errorMessage(res) {
  const body = res.body;
  if (body && typeof body === "object" && typeof body.error === "string") {
    const details = Array.isArray(body.details) && body.details.length > 1
      ? body.details.map((d) => `\n  - ${d.field ? `${d.field}: ` : ""}${d.message}`).join("")
      : "";
    return `${body.error}${body.code ? ` (${body.code})` : ""}${details}`;
  }
  return typeof body === "string" && body ? body.slice(0, 500) : `HTTP ${res.status}`;
}
