import { describe, expect, it } from "vitest";
import { api, expectError } from "../../helpers/http";
import { setupAgency, type TestAgency } from "../../helpers/factories";
import { createContact, nextPhone } from "../../helpers/path-factories";
import { measuredGet } from "../../helpers/rows-read";
import { dbOf } from "../../helpers/shards";

/**
 * `sms_opt_out` on contacts (docs/decisions/sms-opt-out.md): the opt-out belongs to the phone
 * number, so the partner's `sms_opt_out: true` suppresses the number, every contact holding it
 * shows it, and nothing in the API lifts it.
 */

const ONLY_TRUE = "sms_opt_out can only be set to true: only the person lifts an opt-out, by texting START to your SMS number";
const NEEDS_PHONE = "sms_opt_out needs a phone: an opt-out applies to the contact's phone number";
const OPTED_OUT = "Contact has opted out of SMS (texted STOP); they must text START to your number before you can send them an SMS";

const patch = (agency: TestAgency, uuid: string, body: Record<string, unknown>) => api("PATCH", `/contacts/${uuid}`, { token: agency.token, body });

async function optOut(agency: TestAgency, uuid: string) {
  const res = await patch(agency, uuid, { sms_opt_out: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.contact as Record<string, any>;
}

const getContact = async (agency: TestAgency, uuid: string) => (await api("GET", `/contacts/${uuid}`, { token: agency.token })).body.contact as Record<string, any>;

async function suppressions(agency: TestAgency) {
  const db = await dbOf(agency.agencyUuid);
  return (await db.prepare("SELECT number, source, message_id FROM sms_suppressions WHERE agency_id = ? ORDER BY number").bind(agency.agencyUuid).all()).results;
}

/** `contact.updated` events of the agency, oldest first, as `GET /events` renders them. */
async function contactUpdates(agency: TestAgency) {
  const res = await api("GET", "/events?type=contact.updated&limit=100", { token: agency.token });
  return (res.body.events as any[]).reverse().map((e) => e.data.object as Record<string, any>);
}

const smsTo = (agency: TestAgency, uuid: string) => api("POST", "/messages", { token: agency.token, body: { contact_uuid: uuid, channel: "sms", body: "Hello" } });

describe("PATCH /contacts/{contact_uuid} with sms_opt_out: true", () => {
  it("suppresses the contact's number: the contact shows it in one contact.updated event, and a send is 409", async () => {
    const agency = await setupAgency();
    const phone = nextPhone();
    const contact = await createContact(agency.token, { phone });
    expect(contact.sms_opt_out).toBe(false);

    const patched = await optOut(agency, contact.contact_uuid);
    expect(patched).toMatchObject({ contact_uuid: contact.contact_uuid, phone, sms_opt_out: true });
    expect(patched.updated_at >= contact.updated_at).toBe(true);
    expect(await getContact(agency, contact.contact_uuid)).toEqual(patched);
    expect(await suppressions(agency)).toEqual([{ number: phone, source: "api", message_id: null }]);
    expect(await contactUpdates(agency)).toEqual([patched]);
    expectError(await smsTo(agency, contact.contact_uuid), 409, OPTED_OUT, "sms_opt_out");

    // Again: the number stays suppressed as it was (its first cause kept).
    expect((await optOut(agency, contact.contact_uuid)).sms_opt_out).toBe(true);
    expect(await suppressions(agency)).toEqual([{ number: phone, source: "api", message_id: null }]);
  });

  it("outlives the contact: a contact re-created with the number, one given it by PATCH and one upserted with it all show it", async () => {
    const agency = await setupAgency();
    const phone = nextPhone();
    const first = await createContact(agency.token, { phone });
    await optOut(agency, first.contact_uuid);
    expect((await api("DELETE", `/contacts/${first.contact_uuid}`, { token: agency.token })).body.contact.sms_opt_out).toBe(true);

    const recreated = await createContact(agency.token, { first_name: "Again", phone });
    expect(recreated.sms_opt_out).toBe(true);
    expectError(await smsTo(agency, recreated.contact_uuid), 409, OPTED_OUT, "sms_opt_out");

    // The phone moves from the re-created contact to another: each shows its new number's state.
    const other = await createContact(agency.token, { first_name: "Other" });
    const elsewhere = nextPhone();
    expect((await patch(agency, recreated.contact_uuid, { phone: elsewhere })).body.contact).toMatchObject({ phone: elsewhere, sms_opt_out: false });
    expect((await patch(agency, other.contact_uuid, { phone })).body.contact).toMatchObject({ phone, sms_opt_out: true });
    expectError(await smsTo(agency, other.contact_uuid), 409, OPTED_OUT, "sms_opt_out");
    expect((await patch(agency, other.contact_uuid, { phone: null })).body.contact).toMatchObject({ phone: null, sms_opt_out: false });

    // Bulk upsert: created with the number, and moved onto it.
    const bulk = await api("POST", "/contacts/bulk", {
      token: agency.token,
      body: { contacts: [{ first_name: "Bulk", last_name: "New", phone, external_id: "bulk-1" }, { first_name: "Other", last_name: "Lovelace", external_id: "bulk-2", phone: nextPhone() }] },
    });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
    const [created, plain] = bulk.body.results;
    expect((await getContact(agency, created.contact_uuid)).sms_opt_out).toBe(true);
    expect((await getContact(agency, plain.contact_uuid)).sms_opt_out).toBe(false);
    await api("DELETE", `/contacts/${created.contact_uuid}`, { token: agency.token });
    const moved = await api("POST", "/contacts/bulk", { token: agency.token, body: { contacts: [{ first_name: "Other", last_name: "Lovelace", external_id: "bulk-2", phone }] } });
    expect(moved.body.results[0]).toMatchObject({ status: "updated", contact_uuid: plain.contact_uuid });
    expect((await getContact(agency, plain.contact_uuid)).sms_opt_out).toBe(true);
  });

  it("racing a DELETE of the contact, either opts the number out (and the deleted contact shows it) or is 404 and changes nothing", async () => {
    const agency = await setupAgency();
    for (let round = 0; round < 4; round++) {
      const phone = nextPhone();
      const contact = await createContact(agency.token, { phone });
      const [patched, deleted] = await Promise.all([
        patch(agency, contact.contact_uuid, { sms_opt_out: true }),
        api("DELETE", `/contacts/${contact.contact_uuid}`, { token: agency.token }),
      ]);
      expect(deleted.status).toBe(200);
      expect([200, 404]).toContain(patched.status);
      const suppressed = (await suppressions(agency)).some((s) => s.number === phone);
      expect(suppressed).toBe(patched.status === 200);
      const listed = await api("GET", "/contacts?deleted=true&limit=100", { token: agency.token });
      expect(listed.body.contacts.find((c: any) => c.contact_uuid === contact.contact_uuid).sms_opt_out).toBe(suppressed);
    }
  });

  it("opts out the new phone when the same request changes it, and leaves the old one alone", async () => {
    const agency = await setupAgency();
    const [oldPhone, newPhone] = [nextPhone(), nextPhone()];
    const contact = await createContact(agency.token, { phone: oldPhone });
    const res = await patch(agency, contact.contact_uuid, { phone: newPhone, sms_opt_out: true, first_name: "Ada B." });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.contact).toMatchObject({ phone: newPhone, first_name: "Ada B.", sms_opt_out: true });
    expect(await suppressions(agency)).toEqual([{ number: newPhone, source: "api", message_id: null }]);
    // One event for the one request.
    expect(await contactUpdates(agency)).toEqual([res.body.contact]);
    const takesOld = await createContact(agency.token, { first_name: "Grace", phone: oldPhone });
    expect(takesOld.sms_opt_out).toBe(false);
  });

  it("shows a number suppressed while its contact was deleted once the contact is restored, and in the list of deleted contacts", async () => {
    const agency = await setupAgency();
    const phone = nextPhone();
    const old = await createContact(agency.token, { phone });
    await api("DELETE", `/contacts/${old.contact_uuid}`, { token: agency.token });
    const current = await createContact(agency.token, { phone });
    await optOut(agency, current.contact_uuid);

    const deleted = await api("GET", "/contacts?deleted=true", { token: agency.token });
    expect(deleted.body.contacts).toEqual([expect.objectContaining({ contact_uuid: old.contact_uuid, sms_opt_out: true })]);
    // The deleted contact's change is an event too, showing it deleted.
    const updates = await contactUpdates(agency);
    expect(updates.map((c) => [c.contact_uuid, c.sms_opt_out, c.deleted_at !== null])).toEqual(
      expect.arrayContaining([
        [old.contact_uuid, true, true],
        [current.contact_uuid, true, false],
      ]),
    );
    expect(updates).toHaveLength(2);

    await api("DELETE", `/contacts/${current.contact_uuid}`, { token: agency.token });
    const restored = await api("POST", `/contacts/${old.contact_uuid}/restore`, { token: agency.token });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.contact).toMatchObject({ contact_uuid: old.contact_uuid, sms_opt_out: true, deleted_at: null });
  });
});

describe("sms_opt_out: false and other values", () => {
  it("is 400 whatever the number's state, and changes nothing: only the person lifts an opt-out", async () => {
    const agency = await setupAgency();
    const suppressed = await createContact(agency.token, { phone: nextPhone() });
    const free = await createContact(agency.token, { phone: nextPhone() });
    const opted = await optOut(agency, suppressed.contact_uuid);
    for (const [contact, value] of [
      [suppressed, false],
      [free, false],
      [suppressed, "false"],
      [suppressed, null],
      [free, "true"],
      [free, 1],
    ] as const) {
      const res = await patch(agency, contact.contact_uuid, { sms_opt_out: value, first_name: "Changed" });
      expectError(res, 400, ONLY_TRUE, "validation_error");
      expect(res.body.details).toEqual([{ field: "sms_opt_out", message: ONLY_TRUE }]);
    }
    expect(await getContact(agency, suppressed.contact_uuid)).toEqual(opted);
    expect(await getContact(agency, free.contact_uuid)).toEqual(free);
    expect((await suppressions(agency)).map((s) => s.number)).toEqual([opted.phone]);
  });

  it("is not a field of create: unknown there (400)", async () => {
    const agency = await setupAgency();
    const res = await api("POST", "/contacts", { token: agency.token, body: { first_name: "Ada", last_name: "Lovelace", phone: nextPhone(), sms_opt_out: true } });
    expectError(res, 400, "Unknown field: sms_opt_out", "validation_error");
  });

  it("needs a phone: 400 for a contact without one, and for a patch that clears it, changing nothing", async () => {
    const agency = await setupAgency();
    const noPhone = await createContact(agency.token, { email: "nophone@example.com" });
    expectError(await patch(agency, noPhone.contact_uuid, { sms_opt_out: true }), 400, NEEDS_PHONE, "validation_error");
    const withPhone = await createContact(agency.token, { phone: nextPhone() });
    expectError(await patch(agency, withPhone.contact_uuid, { sms_opt_out: true, phone: null }), 400, NEEDS_PHONE, "validation_error");
    expect(await getContact(agency, withPhone.contact_uuid)).toEqual(withPhone);
    expect(await suppressions(agency)).toEqual([]);
    expect(await contactUpdates(agency)).toEqual([]);
  });
});

describe("the number's state per agency, and what reading it costs", () => {
  it("suppresses a number for its agency only", async () => {
    const [a, b] = [await setupAgency(), await setupAgency()];
    const phone = nextPhone();
    const inA = await createContact(a.token, { phone });
    const inB = await createContact(b.token, { phone });
    await optOut(a, inA.contact_uuid);
    expect((await getContact(b, inB.contact_uuid)).sms_opt_out).toBe(false);
    expect((await smsTo(b, inB.contact_uuid)).status).toBe(201);
    expect(await suppressions(b)).toEqual([]);
  });

  it("lists contacts reading no more rows than the same list before its opt-outs", async () => {
    // One agency before and after: two agencies' identical lists can differ by a row read, by
    // where their random ids put them in the index (whether a neighbour's row is stepped on).
    const agency = await setupAgency();
    const created = [];
    for (let i = 0; i < 6; i++) created.push(await createContact(agency.token, { phone: nextPhone() }));
    // Measured after a first read, so one-time reads (the key's first lookup) count in neither.
    await measuredGet(agency.token, "/contacts?limit=20");
    const before = await measuredGet(agency.token, "/contacts?limit=20");
    for (const [i, contact] of created.entries()) if (i % 2 === 0) await optOut(agency, contact.contact_uuid);
    const after = await measuredGet(agency.token, "/contacts?limit=20");
    expect(before.body.contacts.map((c: any) => c.sms_opt_out)).toEqual([false, false, false, false, false, false]);
    expect(after.body.contacts.map((c: any) => c.sms_opt_out)).toEqual([false, true, false, true, false, true]);
    expect(after.rows).toBeLessThanOrEqual(before.rows);
  });
});
