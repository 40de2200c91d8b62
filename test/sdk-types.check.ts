import { PartnerApi, type Schema } from "@partner-api/sdk";

/**
 * The SDK's typed calls take exactly what the API's document lists: an unknown query
 * parameter or body field (the API's 400) fails to compile. Nothing here runs; `npm run
 * typecheck` compiles it, and each `@ts-expect-error` fails the build if its line compiles
 * (docs/decisions/sdk-and-mcp.md). The valid calls are the README's and more.
 */
export async function sdkCallsAreExact(api: PartnerApi, contactUuid: string) {
  // -- Valid calls compile --------------------------------------------------------------
  await api.get("/contacts");
  await api.get("/contacts", { params: { query: { tag: "buyer", limit: 20, deleted: false } } });
  await api.get("/contacts/{contact_uuid}", { params: { path: { contact_uuid: contactUuid } } });
  await api.post("/contacts", { body: { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com", tags: ["buyer"] } });
  await api.post("/contacts", {
    body: { first_name: "Ada", last_name: "Lovelace", custom_fields: { any_key_of_yours: "custom fields are free-form" } },
    params: { header: { "Idempotency-Key": "crm-sync-42" } },
  });
  await api.patch("/contacts/{contact_uuid}", { params: { path: { contact_uuid: contactUuid } }, body: { last_name: "Byron" } });
  await api.put("/calendar/hours", { body: { days: [{ weekday: 1, start: "09:00", end: "17:00" }] } });
  await api.delete("/contacts/{contact_uuid}", { params: { path: { contact_uuid: contactUuid } } });
  for await (const contact of api.list("/contacts", { params: { query: { tag: "buyer" } } })) void contact.first_name;
  // Options of the request itself are not the API's input.
  await api.get("/contacts", { signal: AbortSignal.timeout(5_000), headers: { "X-Request-Id": "sync-1" } });
  // A filter built elsewhere, of the document's own type.
  const filters: { q?: string; tag?: string } = { q: "ada" };
  await api.get("/contacts", { params: { query: filters } });
  const update: Schema<"UpdateContactRequest"> = { email: "ada@example.com" };
  await api.patch("/contacts/{contact_uuid}", { params: { path: { contact_uuid: contactUuid } }, body: update });

  // -- Unknown query parameters do not ---------------------------------------------------
  // @ts-expect-error `tgas` is not a query parameter of GET /contacts (the API's 400 `Unknown query parameter: tgas`).
  await api.get("/contacts", { params: { query: { tgas: "buyer" } } });
  // @ts-expect-error one unknown beside known ones.
  await api.get("/contacts", { params: { query: { tag: "buyer", limt: 20 } } });
  // @ts-expect-error the same through list().
  for await (const contact of api.list("/contacts", { params: { query: { tgas: "buyer" } } })) void contact;
  // @ts-expect-error GET /contacts/{contact_uuid} takes no query at all.
  await api.get("/contacts/{contact_uuid}", { params: { path: { contact_uuid: contactUuid }, query: { expand: "notes" } } });
  // @ts-expect-error a misspelled `query` is no place the API reads.
  await api.get("/contacts", { params: { qeury: { tag: "buyer" } } });
  const stray = { tag: "buyer", tgas: "buyer" };
  // @ts-expect-error a filter object built elsewhere is checked too, not only a literal.
  await api.get("/contacts", { params: { query: stray } });

  // -- Unknown body fields do not ---------------------------------------------------------
  // @ts-expect-error `nickname` is not a field of a contact (the API's 400 `Unknown field: nickname`).
  await api.post("/contacts", { body: { first_name: "Ada", last_name: "Lovelace", nickname: "Countess" } });
  // @ts-expect-error a misspelled field of an update.
  await api.patch("/contacts/{contact_uuid}", { params: { path: { contact_uuid: contactUuid } }, body: { frist_name: "Ada" } });
  // @ts-expect-error a misspelled field inside a list of objects.
  await api.put("/calendar/hours", { body: { days: [{ wekday: 1, start: "09:00", end: "17:00" }] } });
  const body = { first_name: "Ada", last_name: "Lovelace", nickname: "Countess" };
  // @ts-expect-error a body built elsewhere is checked too.
  await api.post("/contacts", { body });
}
