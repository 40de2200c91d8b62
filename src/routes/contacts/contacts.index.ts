import { createRouter } from "@/lib/create-router";
import * as handlers from "./contacts.handlers";
import * as routes from "./contacts.routes";
import { BulkContactItem } from "./contacts.schemas";

// The literal paths /contacts/tags and /contacts/sources are registered before
// /contacts/{contact_uuid}, which would otherwise take them as a uuid (and answer 400).
export const contactsRouter = createRouter()
  .openapi(routes.listContacts, handlers.listContacts)
  .openapi(routes.createContact, handlers.createContact)
  .openapi(routes.bulkUpsertContacts, handlers.bulkUpsertContacts)
  .openapi(routes.listContactTags, handlers.listContactTags)
  .openapi(routes.listContactSources, handlers.listContactSources)
  .openapi(routes.getContact, handlers.getContact)
  .openapi(routes.updateContact, handlers.updateContact)
  .openapi(routes.deleteContact, handlers.deleteContact)
  .openapi(routes.restoreContact, handlers.restoreContact);

// POST /contacts/bulk checks its items one by one (a bad item fails only itself), so its body
// schema refers to BulkContactItem by name: the component is registered here.
contactsRouter.openAPIRegistry.register("BulkContactItem", BulkContactItem);
