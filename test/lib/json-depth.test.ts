import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "@/lib/json-depth";

const deeper = (text: string, limit: number) => nestsDeeperThan(new TextEncoder().encode(text), limit);
const nested = (levels: number, inner = "1") => "[".repeat(levels) + inner + "]".repeat(levels);

describe("nestsDeeperThan", () => {
  it("counts the outermost object or array as level 1, and a scalar as 0", () => {
    expect(deeper("42", 0)).toBe(false);
    expect(deeper('"text"', 0)).toBe(false);
    expect(deeper("{}", 0)).toBe(true);
    expect(deeper("{}", 1)).toBe(false);
    expect(deeper('{"a":[1]}', 1)).toBe(true);
    expect(deeper('{"a":[1]}', 2)).toBe(false);
  });

  it("allows exactly the limit and refuses one level more", () => {
    expect(deeper(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(deeper(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
  });

  it("mixes objects and arrays", () => {
    const body = '{"a":{"b":[{"c":[[{"d":1}]]}]}}';
    expect(deeper(body, 7)).toBe(false);
    expect(deeper(body, 6)).toBe(true);
  });

  it("measures depth, not how many containers there are", () => {
    const wide = `[${Array.from({ length: 10_000 }, () => '{"a":[1]}').join(",")}]`;
    expect(deeper(wide, 3)).toBe(false);
    expect(deeper(wide, 2)).toBe(true);
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    expect(deeper(`{"a":"${"[{".repeat(100)}"}`, 1)).toBe(false);
    expect(deeper(`{"a":"say \\"[[[\\" {{{"}`, 1)).toBe(false);
    // An escaped backslash ends before the quote, so the string closes and the bracket counts.
    expect(deeper('{"a":"\\\\",  "b":[1]}', 1)).toBe(true);
    expect(deeper('{"k[[[":1}', 1)).toBe(false);
  });

  it("is exact on multi-byte UTF-8 text", () => {
    expect(deeper(`{"名前":"${"🙂[".repeat(50)}","b":{"c":"é"}}`, 2)).toBe(false);
    expect(deeper(`{"名前":"🙂","b":{"c":["é"]}}`, 2)).toBe(true);
  });

  it("stops at the first level past the limit of an endless opening", () => {
    expect(deeper("[".repeat(1_000_000), MAX_JSON_DEPTH)).toBe(true);
  });

  it("leaves malformed JSON to the parser", () => {
    expect(deeper("]]]]", 1)).toBe(false);
    expect(deeper('{"a": "unterminated [[[[', 1)).toBe(false);
  });
});
