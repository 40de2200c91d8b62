import { api, expectError, type CallOptions } from "./http";
import { createKey } from "./factories";

/**
 * 403 `Token missing required scope: <scope>` for a key holding one other scope. What every
 * route does (401, 403, 429) is tested once for all of them in route-contract.test.ts; this is
 * for a route's own tests, such as that a refused request changes nothing.
 */
export async function expectScopeRequired(
  agencyUuid: string,
  method: string,
  path: string,
  scope: string,
  options: CallOptions = {},
) {
  const other = scope === "contacts" ? "fields" : "contacts";
  const { token } = await createKey(agencyUuid, { scopes: [other] });
  const res = await api(method, path, { ...options, token });
  expectError(res, 403, `Token missing required scope: ${scope}`, "insufficient_scope");
}
