import { createRouter } from "@/lib/create-router";
import * as handlers from "./users.handlers";
import * as routes from "./users.routes";

// The literal path /users/invites is registered before /users/{agent_uuid}.
export const usersRouter = createRouter()
  .openapi(routes.listMembers, handlers.listMembers)
  .openapi(routes.listInvites, handlers.listInvites)
  .openapi(routes.createInvite, handlers.createInvite)
  .openapi(routes.changeRole, handlers.changeRole)
  .openapi(routes.removeMember, handlers.removeMember);
