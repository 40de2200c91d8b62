import { uuidField } from "@/lib/ids";
import type { TEAM_MEMBER_ALIASES } from "@/domain/users/team-member";

type Alias = (typeof TEAM_MEMBER_ALIASES)[number];

export const MEMBER_EXAMPLE = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

const describe = (alias: Alias) =>
  alias === "agent_uuid"
    ? "A team member of your agency: targets that member's calendar instead of the agency calendar. " +
      "`agentUuid`, `user_uuid`, `user` and `agent` are accepted as other names for it, in the query or the body; " +
      "a member of another agency, or two different members, is 400."
    : `Another name for \`agent_uuid\`.`;

const queryParam = (alias: Alias) =>
  uuidField(alias)
    .optional()
    .openapi({ param: { name: alias, in: "query" }, description: describe(alias), example: MEMBER_EXAMPLE });

const bodyField = (alias: Alias) => uuidField(alias).optional().openapi({ description: describe(alias), example: MEMBER_EXAMPLE });

/** The five names of a team member (docs/decisions/resources.md), as query parameters. */
export const teamMemberQueryShape = {
  agent_uuid: queryParam("agent_uuid"),
  agentUuid: queryParam("agentUuid"),
  user_uuid: queryParam("user_uuid"),
  user: queryParam("user"),
  agent: queryParam("agent"),
};

/** The same five names as JSON body fields. */
export const teamMemberBodyShape = {
  agent_uuid: bodyField("agent_uuid"),
  agentUuid: bodyField("agentUuid"),
  user_uuid: bodyField("user_uuid"),
  user: bodyField("user"),
  agent: bodyField("agent"),
};
