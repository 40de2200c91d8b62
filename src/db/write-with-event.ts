import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "./client";
import { commit } from "@/db/outbox";

type RowOf<W> = Awaited<W> extends (infer R)[] ? R : never;

/**
 * A conditional write of one row that returns it (UPDATE ... RETURNING) with the event of that
 * change right after it (`eventStatement` with `ifChanged`, so the event is written only if the
 * write changed the row), as one batch, one round trip: the row as the write left it, undefined
 * when the write changed nothing (and no event was written).
 */
export async function writeWithEvent<W extends BatchItem<"sqlite">>(db: Db, write: W, event: BatchItem<"sqlite">): Promise<RowOf<W> | undefined> {
  const [rows] = await commit(db, [write, event]);
  return (rows as RowOf<W>[])[0];
}
