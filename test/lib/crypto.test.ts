import { describe, expect, it } from "vitest";
import { hashSecret, randomSecret, sha256Hex, timingSafeEqual } from "@/lib/crypto";

describe("randomSecret", () => {
  it("is 256 bits of base64url without padding", () => {
    const secret = randomSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("never repeats", () => {
    const secrets = new Set(Array.from({ length: 200 }, () => randomSecret()));
    expect(secrets.size).toBe(200);
  });

  it("honours a byte count", () => {
    expect(randomSecret(3)).toMatch(/^[A-Za-z0-9_-]{4}$/);
  });
});

describe("sha256Hex and hashSecret", () => {
  it("matches the SHA-256 test vector", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("is plain SHA-256 without a pepper", async () => {
    expect(await hashSecret("abc")).toBe(await sha256Hex("abc"));
    expect(await hashSecret("abc", "")).toBe(await sha256Hex("abc"));
  });

  it("is HMAC-SHA256 with a pepper (RFC 4231 test case 2)", async () => {
    expect(await hashSecret("what do ya want for nothing?", "Jefe")).toBe(
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
  });
});

describe("timingSafeEqual", () => {
  it("compares strings", () => {
    expect(timingSafeEqual("token", "token")).toBe(true);
    expect(timingSafeEqual("token", "tokem")).toBe(false);
    expect(timingSafeEqual("token", "token2")).toBe(false);
    expect(timingSafeEqual("", "")).toBe(true);
    expect(timingSafeEqual("", "a")).toBe(false);
    expect(timingSafeEqual("é", "e\u0301")).toBe(false);
  });
});
