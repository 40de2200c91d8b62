import type { Context } from "hono";
import type { KeyValue } from "@/db/list-order";
import type { AppBindings } from "@/lib/context";
import { listPage, pageOf, type ListPage, type PaginationQuery } from "@/lib/pagination";
import { requiredTokenPepper } from "@/lib/token-pepper";

const PAGING = new Set(["page", "limit", "cursor"]);

/** The parameters that choose a list's rows, in one spelling whatever their order in the URL. */
const canonical = (values: Record<string, unknown>) =>
  JSON.stringify(
    Object.keys(values)
      .sort()
      .filter((key) => values[key] !== undefined && !PAGING.has(key))
      .map((key) => [key, values[key]]),
  );

/**
 * The page a list request asks for, its cursor bound to this list (the route and its path
 * parameters), the caller's agency and every other query parameter, so a cursor of another
 * list or of other filters is refused instead of paging the wrong rows.
 */
export function askedPage(c: Context<AppBindings>, query: PaginationQuery, order: { size: number }): Promise<ListPage> {
  const binding = [c.req.routePath, c.get("caller").agencyId, canonical(c.req.param()), canonical(query)].join("\n");
  return listPage(query, binding, order.size, requiredTokenPepper(c.env));
}

/** The rows to answer and the pagination, with the cursor of the next page. */
export const answeredPage = <Row>(c: Context<AppBindings>, asked: ListPage, result: { rows: Row[]; total: number }, keysOf: (row: Row) => KeyValue[]) =>
  pageOf(asked, result.rows, result.total, keysOf, requiredTokenPepper(c.env));
