import type { Context } from "hono";
import { AUDIT_PAGE_SIZE, listAuditEntries } from "@/domain/audit/audit-log";
import type { DashboardBindings } from "@/dashboard/http/dashboard-env";
import { render } from "../http/render";
import { AuditPage } from "../pages/audit-page";

/** Far enough for any real log, small enough that the offset stays a sane number. */
const MAX_PAGE = 10_000;

export async function showAuditLog(c: Context<DashboardBindings>) {
  const requested = Number(c.req.query("page") ?? "1");
  const page = Number.isInteger(requested) && requested >= 1 && requested <= MAX_PAGE ? requested : 1;
  const rows = await listAuditEntries(c.var.db, c.var.session.agencyId, page);
  return render(c, <AuditPage session={c.var.session} rows={rows.slice(0, AUDIT_PAGE_SIZE)} page={page} hasMore={rows.length > AUDIT_PAGE_SIZE} />);
}
