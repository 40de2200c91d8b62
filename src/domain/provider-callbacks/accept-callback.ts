import type { Db } from "@/db/client";
import type { AgencyLocation } from "@/db/shards";
import type { Logger } from "@/lib/logger";
import { isAgencyMovingError } from "@/lib/shards/agency-moving";
import type { CallbackMessage } from "@/lib/queues/callback-message";
import { applyCallback, callbackLogFields, type ProviderCallback } from "./provider-callback";

interface AcceptDeps {
  /** The database of a shard, for the live path (a route's request session). */
  dbOf: (shard: string) => Db;
  queue: Queue<CallbackMessage>;
  logger: Logger;
}

type Acceptance = "applied" | "unchanged" | "deferred";

/**
 * Accepts a verified callback for good (docs/decisions/real-providers.md). It is applied at once
 * when its agency stays put; when the directory says the agency is moving, or the write meets the
 * move's fence (the move began after the directory was read), or fails otherwise (D1 unavailable),
 * it goes to the `provider-callbacks` queue instead, whose consumer applies it once it can. Either
 * way the provider may be told it was received: providers do not retry a refused callback, so the
 * only callback that can be lost is one this function throws for (the queue refused it too).
 */
export async function acceptCallback(deps: AcceptDeps, location: Pick<AgencyLocation, "shard" | "movingTo">, callback: ProviderCallback): Promise<Acceptance> {
  if (!location.movingTo) {
    try {
      return (await applyCallback(deps.dbOf(location.shard), callback)) ? "applied" : "unchanged";
    } catch (error) {
      if (!isAgencyMovingError(error)) {
        deps.logger.warn("provider callback failed; deferred to the queue", { ...callbackLogFields(callback), error: (error as Error).message });
      }
    }
  }
  await deps.queue.send(callback);
  return "deferred";
}
