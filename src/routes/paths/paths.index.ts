import { createRouter } from "@/lib/create-router";
import * as handlers from "./paths.handlers";
import * as routes from "./paths.routes";

export const pathsRouter = createRouter()
  .openapi(routes.listPaths, handlers.listPaths)
  .openapi(routes.createPath, handlers.createPath)
  .openapi(routes.getPath, handlers.getPath)
  .openapi(routes.updatePath, handlers.updatePath)
  .openapi(routes.deletePath, handlers.deletePath)
  .openapi(routes.publishPath, handlers.publishPath)
  .openapi(routes.listPathVersions, handlers.listPathVersions);
