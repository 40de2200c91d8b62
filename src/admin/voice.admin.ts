import { z, type RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { createRouter } from "@/lib/create-router";
import { jsonBody } from "@/lib/openapi";
import { phoneField } from "@/lib/phone";
import { createAgent, type AgentWithNumbers } from "@/domain/voice-ai/agents.repository";
import { creditWallet, toPublicWallet } from "@/domain/voice-ai/wallet.repository";
import { adminJson, adminRoute, agencyParams, requireAgency } from "./admin-route";

/**
 * Operator records of Voice AI: agents with their caller ids, and wallet credits. Partners
 * read them through /voice-ai/agents and /voice-ai/wallet but cannot create them.
 */

const MAX_PHONE_NUMBERS = 10;
const MAX_CREDIT_CENTS = 100_000_000;

const providerId = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .trim()
    .min(1, `${name} cannot be blank`)
    .max(100, `${name} must be at most 100 characters`);

const phoneNumberEntry = z.union(
  [
    phoneField("phone_numbers"),
    z.strictObject({ number: phoneField("number"), provider_number_id: providerId("provider_number_id").optional() }),
  ],
  { error: "phone_numbers must be numbers (10-digit US or E.164) or objects { number, provider_number_id }" },
);

const CreateVoiceAgentBody = z
  .strictObject({
    name: z.string().trim().min(1, "name cannot be blank").max(100, "name must be at most 100 characters"),
    phone_numbers: z
      .array(phoneNumberEntry, { error: "phone_numbers must be an array" })
      .max(MAX_PHONE_NUMBERS, `phone_numbers may hold at most ${MAX_PHONE_NUMBERS} numbers`)
      .default([])
      .transform((entries) => entries.map((e) => (typeof e === "string" ? { number: e } : e)))
      .refine((entries) => new Set(entries.map((e) => e.number)).size === entries.length, "phone_numbers must not repeat"),
    status: z.enum(["active", "inactive"]).default("active"),
    provider_agent_id: providerId("provider_agent_id").optional(),
  })
  .openapi("AdminCreateVoiceAgent", {
    example: { name: "Ava (listing follow-up)", phone_numbers: ["+12125550100"], provider_agent_id: "vapi-assistant-id" },
  });

const AdminVoiceAgent = z
  .object({
    agent_uuid: z.string(),
    name: z.string(),
    status: z.enum(["active", "inactive"]),
    provider_agent_id: z.string().nullable(),
    phone_numbers: z.array(
      z.object({ outbound_phone_number_uuid: z.string(), number: z.string(), provider_number_id: z.string().nullable() }),
    ),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("AdminVoiceAgent");

const CreditWalletBody = z
  .strictObject({
    amount_cents: z
      .number({ error: "amount_cents must be a positive integer" })
      .int("amount_cents must be a positive integer")
      .min(1, "amount_cents must be a positive integer")
      .max(MAX_CREDIT_CENTS, `amount_cents must be at most ${MAX_CREDIT_CENTS}`),
    rate_per_minute_cents: z
      .number({ error: "rate_per_minute_cents must be an integer from 0 to 10000" })
      .int("rate_per_minute_cents must be an integer from 0 to 10000")
      .min(0, "rate_per_minute_cents must be an integer from 0 to 10000")
      .max(10_000, "rate_per_minute_cents must be an integer from 0 to 10000")
      .optional(),
    note: z.string().trim().min(1).max(200).optional(),
  })
  .openapi("AdminCreditWallet", { example: { amount_cents: 5000, note: "Monthly top-up" } });

const AdminWallet = z
  .object({
    balance_cents: z.number().int(),
    currency: z.string(),
    rate_per_minute_cents: z.number().int(),
    updated_at: z.string().nullable(),
  })
  .openapi("AdminVoiceWallet");

export const createVoiceAgent = adminRoute({
  method: "post",
  path: "/agencies/{agency_uuid}/voice-agents",
  operationId: "adminCreateVoiceAgent",
  summary: "Create a Voice AI agent with its outbound numbers",
  description:
    "`phone_numbers` are caller ids (10-digit US or E.164, stored E.164), each a string or `{ number, provider_number_id }`. " +
    "`provider_agent_id` / `provider_number_id` are the Vapi assistant and phone number ids, needed when " +
    "VOICE_PROVIDER is `vapi`. A number the agency already uses is 409.",
  request: { params: agencyParams, body: jsonBody(CreateVoiceAgentBody) },
  responses: { 201: adminJson(z.object({ success: z.literal(true), agent: AdminVoiceAgent }), "The agent.") },
});

export const creditVoiceWallet = adminRoute({
  method: "post",
  path: "/agencies/{agency_uuid}/wallet/credit",
  operationId: "adminCreditVoiceWallet",
  summary: "Add funds to an agency's Voice AI wallet",
  description: "Adds `amount_cents` (a ledger credit) and optionally sets the per-minute rate. Creates the wallet on first use.",
  request: { params: agencyParams, body: jsonBody(CreditWalletBody) },
  responses: { 200: adminJson(z.object({ success: z.literal(true), wallet: AdminWallet }), "The wallet after the credit.") },
});

const toOperatorAgent = (a: AgentWithNumbers) => ({
  agent_uuid: a.id,
  name: a.name,
  status: a.status,
  provider_agent_id: a.providerAgentId,
  phone_numbers: a.numbers.map((n) => ({ outbound_phone_number_uuid: n.id, number: n.number, provider_number_id: n.providerNumberId })),
  created_at: a.createdAt,
  updated_at: a.updatedAt,
});

const createVoiceAgentHandler: RouteHandler<typeof createVoiceAgent, AppBindings> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const body = c.req.valid("json");
  const agent = await createAgent(c.var.db, agency.id, {
    name: body.name,
    status: body.status,
    providerAgentId: body.provider_agent_id ?? null,
    numbers: body.phone_numbers.map((n) => ({ number: n.number, providerNumberId: n.provider_number_id ?? null })),
  });
  return c.json({ success: true as const, agent: toOperatorAgent(agent) }, 201);
};

const creditVoiceWalletHandler: RouteHandler<typeof creditVoiceWallet, AppBindings> = async (c) => {
  const agency = await requireAgency(c, c.req.valid("param").agency_uuid);
  const body = c.req.valid("json");
  const wallet = await creditWallet(c.var.db, agency.id, {
    amountCents: body.amount_cents,
    note: body.note,
    ratePerMinuteCents: body.rate_per_minute_cents,
  });
  return c.json({ success: true as const, wallet: toPublicWallet(wallet) }, 200);
};

/** Mounted on the operator router (admin.index.ts). */
export const voiceAdminRouter = createRouter()
  .openapi(createVoiceAgent, createVoiceAgentHandler)
  .openapi(creditVoiceWallet, creditVoiceWalletHandler);
