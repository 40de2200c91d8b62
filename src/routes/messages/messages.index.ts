import { createRouter } from "@/lib/create-router";
import * as handlers from "./messages.handlers";
import * as routes from "./messages.routes";

export const messagesRouter = createRouter()
  .openapi(routes.listMessages, handlers.listMessages)
  .openapi(routes.createMessage, handlers.createMessage)
  .openapi(routes.getMessage, handlers.getMessage)
  .openapi(routes.markMessageRead, handlers.markMessageRead)
  .openapi(routes.markMessageUnread, handlers.markMessageUnread);
