/** A message of the `shard-sweeps` queue: one shard to sweep, sent by the cron (src/jobs/shard-sweep.ts). */
export interface SweepMessage {
  type: "sweep";
  shard: string;
  /**
   * The cron's scheduled time, in epoch milliseconds: the sweep's "now". A late message sweeps as
   * of its cron's time, which only ever does less than a current one would, never something wrong.
   */
  scheduled_time: number;
}
