import { expect } from "vitest";
import { admin } from "./http";

/** A lead order bought through the operator API (the only way one is made), returned as the API shows it. */
export async function createLeadOrder(
  agencyUuid: string,
  overrides: Partial<{ name: string; daily_max: number; states: string[] }> = {},
) {
  const res = await admin("POST", `/agencies/${agencyUuid}/lead-orders`, {
    name: "Texas buyers",
    daily_max: 25,
    states: ["TX"],
    ...overrides,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.lead_order as Record<string, any>;
}
