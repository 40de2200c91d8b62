import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { paths } from "@/db/schema";
import { badRequest } from "@/lib/errors";

export const UNKNOWN_PATH_MESSAGE = "Unknown path_uuid";

/**
 * The one check behind every `path_uuid` a partner sends (contacts, bookings, path events):
 * the path must exist in the caller's agency and not be deleted. Unknown is 400 (SPEC).
 */
export async function assertKnownPath(db: Db, agencyId: string, pathUuid: string): Promise<void> {
  const found = await db
    .select({ id: paths.id })
    .from(paths)
    .where(and(eq(paths.id, pathUuid.toLowerCase()), eq(paths.agencyId, agencyId), isNull(paths.deletedAt)))
    .get();
  if (!found) throw badRequest(UNKNOWN_PATH_MESSAGE);
}
