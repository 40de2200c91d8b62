import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { paths } from "@/db/schema";
import { badRequest } from "@/lib/errors";

export const UNKNOWN_PATH_MESSAGE = "Unknown path_uuid";

/**
 * The one check behind every `path_uuid` a partner sends (contacts, bookings, path events,
 * analytics): the path must exist in the caller's agency. Unknown is 400 (the specification;
 * docs/decisions/resources.md).
 * Deleting a path archives it (`deleted_at` set, status `archived`): an archived path is
 * unknown to new contacts, bookings and events, but `allowArchived` lets the analytics
 * report still name it, since its past events remain.
 */
export async function assertKnownPath(
  db: Db,
  agencyId: string,
  pathUuid: string,
  options: { allowArchived?: boolean } = {},
): Promise<void> {
  const found = await db
    .select({ id: paths.id })
    .from(paths)
    .where(
      and(
        eq(paths.id, pathUuid.toLowerCase()),
        eq(paths.agencyId, agencyId),
        options.allowArchived ? undefined : isNull(paths.deletedAt),
      ),
    )
    .get();
  if (!found) throw badRequest(UNKNOWN_PATH_MESSAGE);
}
