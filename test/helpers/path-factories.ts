import { expect } from "vitest";
import { admin, api } from "./http";

/** Test factories for paths, path events, contacts with phones and messages. */

export const QUESTION_STEP = { key: "budget", type: "question", title: "What is your budget?", options: ["Low", "High"] };
export const CONTENT_STEP = { key: "intro", type: "content", title: "Welcome" };
export const FORM_STEP = {
  key: "contact-form",
  type: "form",
  title: "Your details",
  fields: [{ key: "email", label: "Email", required: true }],
};

export async function createPath(token: string, body: Record<string, unknown> = {}) {
  const res = await api("POST", "/paths", { token, body: { name: "Seller funnel", ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.path as Record<string, any>;
}

export async function publishPath(token: string, pathUuid: string) {
  const res = await api("POST", `/paths/${pathUuid}/publish`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.path as Record<string, any>;
}

export async function archivePath(token: string, pathUuid: string) {
  const res = await api("DELETE", `/paths/${pathUuid}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.path as Record<string, any>;
}

/** Records a path event through the operator API, as a hosted path would. */
export async function pathEvent(agencyUuid: string, body: { path_uuid: string; type: string; step?: string; at?: string }) {
  const res = await admin("POST", `/agencies/${agencyUuid}/path-events`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.event as Record<string, any>;
}

/** `n` identical events. */
export async function pathEvents(agencyUuid: string, n: number, body: { path_uuid: string; type: string; step?: string; at?: string }) {
  for (let i = 0; i < n; i++) await pathEvent(agencyUuid, body);
}

let phoneCounter = 0;
/** A distinct valid US number per call. */
export const nextPhone = () => `+1415555${String(++phoneCounter % 10_000).padStart(4, "0")}`;

export async function createContact(token: string, body: Record<string, unknown> = {}) {
  const res = await api("POST", "/contacts", { token, body: { first_name: "Ada", last_name: "Lovelace", ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.contact as Record<string, any>;
}

export async function sendMessage(token: string, body: Record<string, unknown>) {
  const res = await api("POST", "/messages", { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.message as Record<string, any>;
}

/** An inbound SMS from the contact, as the operator API (the SMS webhook) records it. */
export async function inboundMessage(agencyUuid: string, contactUuid: string, body = "Is the house still available?") {
  const res = await admin("POST", `/agencies/${agencyUuid}/messages`, { contact_uuid: contactUuid, channel: "sms", direction: "inbound", body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.message as Record<string, any>;
}
