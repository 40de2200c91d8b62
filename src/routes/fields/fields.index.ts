import { createRouter } from "@/lib/create-router";
import * as handlers from "./fields.handlers";
import * as routes from "./fields.routes";

export const fieldsRouter = createRouter()
  .openapi(routes.listFields, handlers.listFields)
  .openapi(routes.createField, handlers.createField)
  .openapi(routes.updateField, handlers.updateField, handlers.updateFieldHook)
  .openapi(routes.deleteField, handlers.deleteField);
