import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep, type WorkflowStepConfig } from "cloudflare:workers";
import { NonRetryableError } from "cloudflare:workflows";
import { COPY_START, PURGE_START, type CopyCursor, type PurgeCursor } from "@/db/agency-copy";
import type { Env } from "@/env";
import {
  copyStep,
  fenceMove,
  finishMove,
  forgetPartialCopy,
  MoveCheckFailed,
  purgeStep,
  rollBackMove,
  switchMove,
  tellGates,
  verifyMove,
} from "@/domain/agencies/move-agency";
import type { MoveParams } from "@/lib/shards/move-params";

/**
 * A move of an agency between shards as a Cloudflare Workflow (docs/decisions/shards-and-moves.md):
 * the Workflows engine records each step's result, so a Worker that restarts resumes the move at
 * the step it was in, and a step that throws is retried with backoff. Every step handles a
 * bounded amount of data and is safe to run again (src/domain/agencies/move-agency.ts). Step
 * names repeat for the pages of one phase ("copy rows" 1, 2, ...) and depend only on earlier
 * results, as a replay needs.
 */

/** About a minute of retries: D1 being briefly unreachable does not undo a move; a lasting failure does. */
const RETRIED: WorkflowStepConfig = { retries: { limit: 5, delay: "2 seconds", backoff: "exponential" }, timeout: "5 minutes" };

/**
 * How long a key's gate may keep the agency's old shard when it could not be told: its row's
 * minute, after which it reads the row on the old shard, finds the `moved` fence there and reads
 * the directory again; and a margin.
 */
const GATE_CACHE_WAIT = "2 minutes";

export class AgencyMoveWorkflow extends WorkflowEntrypoint<Env, MoveParams> {
  override async run(event: Readonly<WorkflowEvent<MoveParams>>, step: WorkflowStep) {
    const move = event.payload;
    const env = this.env;
    // A failure no retry mends ends the step at once: the move is rolled back without waiting out the retries.
    const run = <T extends Rpc.Serializable<T>>(name: string, work: () => Promise<T>) =>
      step.do(name, RETRIED, async () => {
        try {
          return await work();
        } catch (error) {
          if (error instanceof MoveCheckFailed) throw new NonRetryableError(error.message);
          throw error;
        }
      });
    const purge = async (name: string, shard: string) => {
      for (let from: PurgeCursor = PURGE_START; ; ) {
        const at = from;
        const page = await run(name, () => purgeStep(env, move, shard, at));
        if (page.done) return;
        from = page.next;
      }
    };

    let rowsCopied = 0;
    try {
      const fenced = await run("fence", () => fenceMove(env, move));
      if (fenced.rowsOnTarget > 0) await purge("clear the target", move.to);
      for (let cursor: CopyCursor = COPY_START; ; ) {
        const [at, before] = [cursor, rowsCopied];
        const page = await run("copy rows", () => copyStep(env, move, at, before));
        rowsCopied += page.copied;
        if (page.done) break;
        cursor = page.next;
      }
      await run("verify", () => verifyMove(env, move));
      await run("switch", () => switchMove(env, move));
    } catch (error) {
      const reason = reasonOf(error);
      const outcome = await run("roll back", () => rollBackMove(env, move, reason));
      if (outcome === "rolled-back") {
        await purge("remove the partial copy", move.to);
        await run("forget the partial copy", () => forgetPartialCopy(env, move));
        return { state: "failed", error: reason };
      }
    }

    if (!(await run("tell the gates", () => tellGates(env, move.agency_id)))) await step.sleep("wait out the gates' caches", GATE_CACHE_WAIT);
    await purge("remove the old copy", move.from);
    await run("finish", () => finishMove(env, move));
    return { state: "done", rows_copied: rowsCopied };
  }
}

/** The message of a step's last failure, without the prefix the engine adds to a NonRetryableError's. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^(?:NonRetryableError:\s*|Step threw a NonRetryableError with message ")(.*?)"?$/s, "$1");
}
