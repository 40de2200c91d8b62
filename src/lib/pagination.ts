import { z } from "@hono/zod-openapi";
import { boundedInt, countInt } from "@/lib/bounded";
import { queryInteger } from "@/lib/query";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
const MAX_PAGE = 1_000_000;

/** `page` (>= 1, default 1) and `limit` (1..100, default 20); out of range is 400. */
export const paginationQuery = z.object({
  page: queryInteger("page", { min: 1, max: MAX_PAGE, default: 1, description: "Page number, from 1." }),
  limit: queryInteger("limit", {
    min: 1,
    max: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `Page size, 1 to ${MAX_PAGE_SIZE}.`,
  }),
});

export type Pagination = z.infer<typeof paginationQuery>;

export const PaginationSchema = z
  .object({
    page: boundedInt(1, MAX_PAGE),
    limit: boundedInt(1, MAX_PAGE_SIZE),
    total: countInt().openapi({ description: "Number of records matching the filters, over all pages." }),
  })
  .openapi("Pagination", { example: { page: 1, limit: 20, total: 1 } });

export const offsetOf = ({ page, limit }: Pagination) => (page - 1) * limit;

export const paginationOf = ({ page, limit }: Pagination, total: number) => ({ page, limit, total });
