import { describe, expect, it } from "vitest";
import { PHONE_FORMAT_MESSAGE, phoneField, toE164 } from "@/lib/phone";

describe("toE164", () => {
  it.each([
    ["4155550123", "+14155550123"],
    ["(415) 555-0123", "+14155550123"],
    ["415.555.0123", "+14155550123"],
    ["415-555-0123", "+14155550123"],
    [" 415 555 0123 ", "+14155550123"],
  ])("turns the 10-digit US number %j into %s", (input, expected) => {
    expect(toE164(input)).toBe(expected);
  });

  it.each([
    ["+14155550123", "+14155550123"],
    ["+447911123456", "+447911123456"],
    ["+33612345678", "+33612345678"],
  ])("keeps the E.164 number %s", (input, expected) => {
    expect(toE164(input)).toBe(expected);
  });

  it.each([
    ["9 digits", "415555012"],
    ["11 digits without +", "14155550123"],
    ["letters", "415-CALL-NOW"],
    ["all letters", "not a phone"],
    ["empty", ""],
    ["only spaces", "   "],
    ["invalid US area code", "0155550123"],
    ["invalid E.164", "+999123"],
    ["too long", `+1${"4".repeat(40)}`],
  ])("rejects %s", (_label, input) => {
    expect(toE164(input)).toBeNull();
  });
});

describe("phoneField", () => {
  const field = phoneField("phone");

  it("normalises to E.164", () => {
    expect(field.parse("(415) 555-0123")).toBe("+14155550123");
  });

  it("names the field in the message", () => {
    const result = field.safeParse("12345");
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.message).toBe(`phone ${PHONE_FORMAT_MESSAGE}`);
  });

  it("rejects non-strings and over-long strings", () => {
    expect(field.safeParse(4155550123).success).toBe(false);
    expect(field.safeParse("4".repeat(33)).success).toBe(false);
  });
});
