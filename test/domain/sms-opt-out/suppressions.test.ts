import { describe, expect, it } from "vitest";
import { createDb } from "@/db/client";
import { updateContact } from "@/domain/contacts/contacts.repository";
import { assertNotSuppressed } from "@/domain/messages/sms-opt-out";
import { isSuppressed } from "@/domain/sms-opt-out/suppressions.repository";
import { ApiError } from "@/lib/errors";
import { admin, api } from "../../helpers/http";
import { setupAgency, setupAgencyOn } from "../../helpers/factories";
import { createContact, nextPhone } from "../../helpers/path-factories";
import { dbOf, moveEnded, shardDb } from "../../helpers/shards";

describe("suppressing a number for the partner", () => {
  it("writes nothing when the contact was deleted between the PATCH's read and its write (the PATCH is then 404)", async () => {
    const agency = await setupAgency();
    const phone = nextPhone();
    const contact = await createContact(agency.token, { phone });
    await api("DELETE", `/contacts/${contact.contact_uuid}`, { token: agency.token });
    const db = createDb(await dbOf(agency.agencyUuid));

    expect(await updateContact(db, agency.agencyUuid, contact.contact_uuid, { optOutNumber: phone })).toBeUndefined();
    expect(await isSuppressed(db, agency.agencyUuid, phone)).toBe(false);
    const events = await api("GET", "/events?type=contact.updated", { token: agency.token });
    expect(events.body.events).toEqual([]);
  });
});

describe("assertNotSuppressed, the check of every send", () => {
  it("throws 409 sms_opt_out for a suppressed number of the agency only", async () => {
    const [agency, other] = [await setupAgency(), await setupAgency()];
    const phone = nextPhone();
    const contact = await createContact(agency.token, { phone });
    await api("PATCH", `/contacts/${contact.contact_uuid}`, { token: agency.token, body: { sms_opt_out: true } });
    const db = createDb(await dbOf(agency.agencyUuid));

    const error = await assertNotSuppressed(db, agency.agencyUuid, phone).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: "sms_opt_out" });
    await expect(assertNotSuppressed(db, agency.agencyUuid, nextPhone())).resolves.toBeUndefined();
    const otherDb = createDb(await dbOf(other.agencyUuid));
    await expect(assertNotSuppressed(otherDb, other.agencyUuid, phone)).resolves.toBeUndefined();
  });
});

describe("a suppression when its agency moves", () => {
  it("moves with the agency: the number is still refused on the new shard, for a contact re-created there too", async () => {
    const agency = await setupAgencyOn("DB");
    const phone = nextPhone();
    const contact = await createContact(agency.token, { phone });
    await api("PATCH", `/contacts/${contact.contact_uuid}`, { token: agency.token, body: { sms_opt_out: true } });

    const moved = await admin("POST", `/agencies/${agency.agencyUuid}/move`, { shard: "DB_EU" });
    expect(moved.status, JSON.stringify(moved.body)).toBe(202);
    expect(await moveEnded(agency.agencyUuid)).toMatchObject({ state: "done" });
    expect(await shardDb("DB_EU").prepare("SELECT source FROM sms_suppressions WHERE agency_id = ? AND number = ?").bind(agency.agencyUuid, phone).first("source")).toBe("api");
    expect(await shardDb("DB").prepare("SELECT count(*) AS n FROM sms_suppressions WHERE agency_id = ?").bind(agency.agencyUuid).first("n")).toBe(0);

    const sms = (uuid: string) => api("POST", "/messages", { token: agency.token, body: { contact_uuid: uuid, channel: "sms", body: "Hello" } });
    expect((await sms(contact.contact_uuid)).body.code).toBe("sms_opt_out");
    await api("DELETE", `/contacts/${contact.contact_uuid}`, { token: agency.token });
    const again = await createContact(agency.token, { phone });
    expect(again.sms_opt_out).toBe(true);
    expect((await sms(again.contact_uuid)).status).toBe(409);
  });
});
