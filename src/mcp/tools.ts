import { z, type RouteConfig } from "@hono/zod-openapi";
import type { ToolAnnotations } from "./mcp-types";
import { scopes, type Scope } from "@/lib/auth/scopes";
import { cancelAppointment, listAppointments } from "@/routes/appointments/appointments.routes";
import { createBooking, listAvailability } from "@/routes/calendar/calendar.routes";
import { bulkUpsertContacts, getContact, listContacts } from "@/routes/contacts/contacts.routes";
import { BulkContactItem } from "@/routes/contacts/contacts.schemas";
import { contactMessages, MAX_BULK_CONTACTS } from "@/domain/contacts/contacts.rules";
import { listEvents } from "@/routes/events/events.routes";
import { createMessage } from "@/routes/messages/messages.routes";
import { cancelVoiceCall, createVoiceCall, getVoiceCall, getVoiceWallet, listVoiceAgents } from "@/routes/voice-ai/voice-ai.routes";

/** A Partner API route as partnerRoute builds it: its definition and its scopes. */
type PartnerRoute = RouteConfig & { "x-required-scopes"?: readonly Scope[] };

/**
 * One MCP tool: a task an agent does for a partner, carried out by one Partner API route,
 * which checks its input, its scope and its rate limit exactly as for a partner's request.
 */
export interface McpTool {
  name: string;
  title: string;
  /** What the task is for; the route's own description follows it. */
  purpose: string;
  route: PartnerRoute;
  annotations: ToolAnnotations;
  /** Arguments documented more closely than the route's schema can (see toolInput). */
  refine?: Record<string, z.ZodType>;
}

const readOnly: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Writes are retry-safe: a POST tool sends an Idempotency-Key derived from its arguments. */
const write = (annotations: Omit<ToolAnnotations, "readOnlyHint" | "idempotentHint">): ToolAnnotations => ({
  readOnlyHint: false,
  idempotentHint: true,
  ...annotations,
});

export const tools: readonly McpTool[] = [
  {
    name: "search_contacts",
    title: "Search contacts",
    purpose: "Find contacts of the agency by name, email, phone digits, tag, source or your own external_id.",
    route: listContacts,
    annotations: readOnly,
  },
  {
    name: "get_contact",
    title: "Get a contact",
    purpose: "Read one contact by its contact_uuid.",
    route: getContact,
    annotations: readOnly,
  },
  {
    name: "upsert_contacts",
    title: "Create or update contacts",
    purpose: "Create contacts, or update the ones that match by external_id, email or phone, up to 100 at a time; one result per item.",
    route: bulkUpsertContacts,
    annotations: write({ destructiveHint: false, openWorldHint: false }),
    refine: {
      contacts: z.array(BulkContactItem).min(1, contactMessages.bulkSize).max(MAX_BULK_CONTACTS, contactMessages.bulkSize),
    },
  },
  {
    name: "get_availability",
    title: "Find free appointment slots",
    purpose: "List the free slots of the agency calendar (or a team member's) between two dates, to offer one and book it.",
    route: listAvailability,
    annotations: readOnly,
  },
  {
    name: "book_appointment",
    title: "Book an appointment",
    purpose: "Book a free slot (a start_at from get_availability) for an existing contact or a new one.",
    route: createBooking,
    annotations: write({ destructiveHint: false, openWorldHint: false }),
  },
  {
    name: "list_appointments",
    title: "List appointments",
    purpose: "List appointments in a date range, by status, contact or team member.",
    route: listAppointments,
    annotations: readOnly,
  },
  {
    name: "cancel_appointment",
    title: "Cancel an appointment",
    purpose: "Cancel a booked appointment; its slot becomes free again.",
    route: cancelAppointment,
    annotations: write({ destructiveHint: true, openWorldHint: false }),
  },
  {
    name: "list_voice_agents",
    title: "List Voice AI agents",
    purpose: "List the agency's Voice AI agents, to choose the voice_agent_uuid of a call.",
    route: listVoiceAgents,
    annotations: readOnly,
  },
  {
    name: "start_call",
    title: "Start or schedule a Voice AI call",
    purpose: "Place an outbound Voice AI call to a phone number now, after a delay or at a set time. It is paid from the prepaid wallet.",
    route: createVoiceCall,
    annotations: write({ destructiveHint: false, openWorldHint: true }),
  },
  {
    name: "get_call",
    title: "Get a Voice AI call",
    purpose: "Read a call: its status, outcome, duration, cost, transcript and recording once it has ended.",
    route: getVoiceCall,
    annotations: readOnly,
  },
  {
    name: "cancel_call",
    title: "Cancel a Voice AI call",
    purpose: "Cancel a call that has not started yet.",
    route: cancelVoiceCall,
    annotations: write({ destructiveHint: true, openWorldHint: false }),
  },
  {
    name: "get_wallet",
    title: "Get the Voice AI wallet",
    purpose: "Read the prepaid balance that pays for calls.",
    route: getVoiceWallet,
    annotations: readOnly,
  },
  {
    name: "send_message",
    title: "Send an SMS or add a note",
    purpose: "Text a contact (channel sms) or record an internal note about them (channel note).",
    route: createMessage,
    annotations: write({ destructiveHint: false, openWorldHint: true }),
  },
  {
    name: "list_events",
    title: "List recent events",
    purpose: "See what changed in the agency over the last 30 days (contacts, appointments, calls, messages and more), newest first.",
    route: listEvents,
    annotations: readOnly,
  },
];

/** The scopes of which a key needs one to use the tool: the scopes of its route. */
export const scopesOf = (tool: McpTool): readonly Scope[] => tool.route["x-required-scopes"] ?? [];

/**
 * Every scope some tool needs, in the API's order: what an MCP host is told to ask for (the
 * 401's challenge and the MCP server's resource metadata), and what the consent page grants one
 * that asks for nothing in particular.
 */
export const toolScopes: readonly Scope[] = scopes.filter((scope) => tools.some((tool) => scopesOf(tool).includes(scope)));
