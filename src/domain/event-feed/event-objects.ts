import { appGrants, appointments, contacts, fields, invites, leadOrders, members, messages, paths, voiceCalls } from "@/db/schema";
import { toPublicGrant } from "@/domain/auth/app-grants.repository";
import { rowFromSnapshot, type EventObjectType } from "@/domain/events/events";
import { toPublicAppointment } from "@/domain/calendar/appointments.repository";
import { toPublicContact } from "@/domain/contacts/contacts.repository";
import { toPublicField } from "@/domain/fields/fields.repository";
import { toPublicLeadOrder } from "@/domain/lead-orders/lead-orders.repository";
import { toPublicMessage } from "@/domain/messages/messages.repository";
import { toPublicPath } from "@/domain/paths/paths.repository";
import { toPublicInvite } from "@/domain/users/invites.repository";
import { toPublicMember } from "@/domain/users/members.repository";
import { toPublicCall } from "@/domain/voice-ai/calls.repository";

/** The `message` of a `ping` event (`POST /webhook-endpoints/{webhook_endpoint_uuid}/test`). */
export const PING_MESSAGE = "This is a test event sent from the Partner API.";

type Snapshot = Record<string, unknown>;
const text = (value: unknown) => (typeof value === "string" ? value : null);

/**
 * The public record of each kind of event object, from the row snapshot its event holds,
 * through the same mapper the resource's own routes use: `data.object` is exactly what the
 * API returns for that record.
 */
const renderers: Record<EventObjectType, (snapshot: Snapshot) => unknown> = {
  contact: (s) => toPublicContact(rowFromSnapshot(contacts, s)),
  appointment: (s) =>
    toPublicAppointment({ appointment: rowFromSnapshot(appointments, s), firstName: text(s.contactFirstName), lastName: text(s.contactLastName) }),
  call: (s) => toPublicCall(rowFromSnapshot(voiceCalls, s)),
  message: (s) => toPublicMessage(rowFromSnapshot(messages, s)),
  lead_order: (s) => toPublicLeadOrder(rowFromSnapshot(leadOrders, s)),
  path: (s) => toPublicPath(rowFromSnapshot(paths, s)),
  field: (s) => toPublicField(rowFromSnapshot(fields, s)),
  team_member: (s) => toPublicMember(rowFromSnapshot(members, s)),
  invite: (s) => toPublicInvite(rowFromSnapshot(invites, s)),
  app_grant: (s) => toPublicGrant(rowFromSnapshot(appGrants, s)),
  ping: (s) => ({ webhook_endpoint_uuid: text(s.webhookEndpointUuid), message: PING_MESSAGE }),
};

export const renderObject = (objectType: string, snapshot: Snapshot) => renderers[objectType as EventObjectType]?.(snapshot) ?? null;
