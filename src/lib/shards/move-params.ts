/**
 * What a move's Workflow instance is started with (src/jobs/agency-move-workflow.ts). The
 * instance's id is `move_id`, the id of the move's row in the directory.
 */
export interface MoveParams {
  move_id: string;
  agency_id: string;
  /** The shard the agency lives on when the move starts. */
  from: string;
  /** The shard it moves to. */
  to: string;
}
