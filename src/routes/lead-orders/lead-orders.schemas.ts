import { z } from "@hono/zod-openapi";
import { leadOrderStatuses } from "@/db/schema";
import { boundedInt, countInt, instantString, integerFormat, uuidString } from "@/lib/bounded";
import { uuidParam } from "@/lib/ids";
import { MAX_PAGE_SIZE, PaginationSchema, paginationQuery, singlePageExample } from "@/lib/pagination";

export const MAX_DAILY_MAX = 10_000;
export const MAX_ORDER_NAME_LENGTH = 100;

/**
 * The 50 states and the District of Columbia. Territories (PR, GU, VI, AS, MP) are not lead
 * delivery areas of an order and are rejected like any unknown code.
 */
export const US_STATE_CODES = [
  "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS",
  "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC",
  "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
] as const;
const stateCodes: ReadonlySet<string> = new Set(US_STATE_CODES);
/** A list without repeats holds each code at most once. */
const MAX_STATES = US_STATE_CODES.length;

export const leadOrderMessages = {
  notFound: "Lead order not found",
  canceled: "Lead order is canceled and can no longer be changed",
  alreadyCanceled: "Lead order is already canceled",
  changedConcurrently: "Lead order was changed by another request at the same time; retry",
  name: `name must be 1 to ${MAX_ORDER_NAME_LENGTH} characters`,
  dailyMax: `daily_max must be a whole number from 1 to ${MAX_DAILY_MAX}`,
  statesType: "states must be an array of two-letter US state codes",
  stateType: "must be a two-letter US state code (a string)",
  statesEmpty: "states must list at least one state",
  statesTooMany: `states may list at most ${MAX_STATES} states (the 50 states and DC)`,
  unknownStates: (codes: string[]) =>
    `states contains unknown US state codes: ${codes.join(", ")} (use the 50 states and DC, e.g. TX)`,
  repeatedStates: (codes: string[]) => `states must not repeat: ${codes.join(", ")}`,
  paused: "paused must be true or false",
  status: `status must be one of: ${leadOrderStatuses.join(", ")}`,
} as const;

export const exampleOrderUuid = "6a1e4c2b-7d3f-4b8a-9e5c-1f2a3b4c5d6e";

const leadOrderExample = {
  order_uuid: exampleOrderUuid,
  name: "Texas and Florida buyers",
  status: "active" as const,
  daily_max: 25,
  states: ["TX", "FL"],
  delivered_count: 118,
  created_at: "2026-11-02T15:00:00.000Z",
  updated_at: "2026-11-20T09:12:44.512Z",
  canceled_at: null,
};

export const LeadOrder = z
  .object({
    order_uuid: uuidString().openapi({ description: "Identifier of the lead order." }),
    name: z.string().max(MAX_ORDER_NAME_LENGTH).openapi({ description: "Display name of the order." }),
    status: z.enum(leadOrderStatuses).openapi({
      description:
        "`active` orders receive leads, `paused` ones receive none until resumed, `canceled` is final: a canceled order cannot be changed.",
    }),
    daily_max: boundedInt(1, MAX_DAILY_MAX).openapi({ description: `Most leads delivered per day, 1 to ${MAX_DAILY_MAX}.` }),
    states: z
      // Stored through statesField, so always codes of the list (typed as strings by the table).
      .array(z.string().openapi({ enum: [...US_STATE_CODES] }))
      .min(1)
      .max(MAX_STATES)
      .openapi({ description: "Two-letter codes of the US states (and DC) leads come from." }),
    delivered_count: countInt().openapi({ description: "Leads delivered under this order so far." }),
    created_at: instantString(),
    updated_at: instantString(),
    canceled_at: instantString().nullable().openapi({ description: "When the order was canceled; null unless `status` is `canceled`." }),
  })
  .openapi("LeadOrder", { example: leadOrderExample });

export const LeadOrderResponse = z
  .object({ success: z.literal(true), lead_order: LeadOrder })
  .openapi("LeadOrderResponse", { example: { success: true, lead_order: leadOrderExample } });

export const LeadOrderListResponse = z
  .object({ success: z.literal(true), lead_orders: z.array(LeadOrder).max(MAX_PAGE_SIZE), pagination: PaginationSchema })
  .openapi("LeadOrderListResponse", {
    example: { success: true, lead_orders: [leadOrderExample], pagination: singlePageExample },
  });

export const LeadOrderParams = z.object({ order_uuid: uuidParam("order_uuid") });

export const ListLeadOrdersQuery = paginationQuery.extend({
  status: z
    .enum(leadOrderStatuses, { error: leadOrderMessages.status })
    .optional()
    .openapi({ param: { name: "status", in: "query" }, description: "Only orders in this status.", example: "active" }),
});

export const orderNameField = z
  .string({ error: (issue) => (issue.input === undefined ? "name is required" : leadOrderMessages.name) })
  .trim()
  .min(1, leadOrderMessages.name)
  .max(MAX_ORDER_NAME_LENGTH, leadOrderMessages.name)
  .openapi({ description: `Display name, 1 to ${MAX_ORDER_NAME_LENGTH} characters (trimmed).`, example: "Texas and Florida buyers" });

export const dailyMaxField = z
  .number({ error: (issue) => (issue.input === undefined ? "daily_max is required" : leadOrderMessages.dailyMax) })
  .int(leadOrderMessages.dailyMax)
  .min(1, leadOrderMessages.dailyMax)
  .max(MAX_DAILY_MAX, leadOrderMessages.dailyMax)
  .openapi({ description: `Most leads delivered per day: a whole number from 1 to ${MAX_DAILY_MAX}.`, format: integerFormat(1, MAX_DAILY_MAX), example: 25 });

/** Codes arrive trimmed and upper-cased; the array is checked as a whole so every message names `states`. */
export const statesField = z
  .array(z.string({ error: leadOrderMessages.stateType }).trim().toUpperCase(), {
    error: (issue) => (issue.input === undefined ? "states is required" : leadOrderMessages.statesType),
  })
  // A longer list must repeat a code or name an unknown one: its length is the answer.
  .max(MAX_STATES, { error: leadOrderMessages.statesTooMany, abort: true })
  .superRefine((states, ctx) => {
    if (states.length === 0) {
      ctx.addIssue({ code: "custom", message: leadOrderMessages.statesEmpty });
      return;
    }
    const unknown = [...new Set(states.filter((s) => !stateCodes.has(s)))];
    if (unknown.length > 0) {
      // Long garbage is cut so the message stays readable.
      ctx.addIssue({ code: "custom", message: leadOrderMessages.unknownStates(unknown.slice(0, 10).map((s) => s.slice(0, 10))) });
      return;
    }
    const repeated = [...new Set(states.filter((s, i) => states.indexOf(s) !== i))];
    if (repeated.length > 0) ctx.addIssue({ code: "custom", message: leadOrderMessages.repeatedStates(repeated) });
  })
  .openapi({
    type: "array",
    items: { type: "string", enum: [...US_STATE_CODES] },
    minItems: 1,
    maxItems: MAX_STATES,
    description:
      "Two-letter codes of the 50 US states and DC, at least one, without repeats; lower-case input is accepted and " +
      "stored upper-case. Territories (PR, GU, VI, AS, MP) are not accepted. Replaces the whole list, in the order given.",
    example: ["TX", "FL"],
  });

export const UpdateLeadOrderBody = z
  .strictObject({
    name: orderNameField.optional(),
    daily_max: dailyMaxField.optional(),
    states: statesField.optional(),
  })
  .openapi("UpdateLeadOrderRequest", { example: { daily_max: 40, states: ["TX", "FL", "GA"] } });

export const PauseLeadOrderBody = z
  .strictObject({
    paused: z
      .boolean({ error: (issue) => (issue.input === undefined ? "paused is required" : leadOrderMessages.paused) })
      .openapi({ description: "`true` pauses the order, `false` resumes it.", example: true }),
  })
  .openapi("PauseLeadOrderRequest", { example: { paused: true } });
