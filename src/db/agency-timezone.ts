import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { agencies } from "@/db/schema";

/** The agency's timezone (IANA), as a query for a `commit` batch: read its rows with `timezoneOf`. */
export const agencyTimezoneQuery = (db: Db, agencyId: string) =>
  db.select({ timezone: agencies.timezone }).from(agencies).where(eq(agencies.id, agencyId));

/** The timezone from the rows of `agencyTimezoneQuery`: "UTC" without an agency row (or zone). */
export const timezoneOf = (rows: { timezone: string | null }[]) => rows[0]?.timezone ?? "UTC";

/** The agency's timezone (IANA), "UTC" without one: one query. */
export const agencyTimezone = async (db: Db, agencyId: string) => timezoneOf(await agencyTimezoneQuery(db, agencyId));
