import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { cleanJSON, silentLogger, tool } from "../../src/index.js";
import { settle } from "./helpers.js";

const parsed = (raw: string): unknown => JSON.parse(cleanJSON(raw));

describe("cleanJSON", () => {
  it("leaves plain JSON alone", () => {
    expect(cleanJSON('{"a":1}')).toBe('{"a":1}');
    expect(cleanJSON('  {"a":1}\n')).toBe('{"a":1}');
  });

  it("unwraps a ```json fence", () => {
    expect(parsed('```json\n{"city":"Paris"}\n```')).toEqual({ city: "Paris" });
    expect(parsed('```JSON\r\n{"city":"Paris"}\r\n```')).toEqual({ city: "Paris" });
  });

  it("unwraps a bare ``` fence, also on one line", () => {
    expect(parsed('```\n{"city":"Paris"}\n```')).toEqual({ city: "Paris" });
    expect(parsed('```{"city":"Paris"}```')).toEqual({ city: "Paris" });
  });

  it("drops prose before and after, with or without a fence", () => {
    expect(parsed('Here are the arguments: {"city":"Paris"} Hope that helps!')).toEqual({ city: "Paris" });
    expect(parsed('Sure.\n```json\n{"city":"Paris"}\n```\nLet me know.')).toEqual({ city: "Paris" });
  });

  it("strips a leading BOM", () => {
    expect(cleanJSON('\uFEFF{"a":1}')).toBe('{"a":1}');
    expect(parsed('\uFEFF```json\n{"a":1}\n```')).toEqual({ a: 1 });
  });

  it("does NOT fix trailing commas: the tool gets FailedUnmarshalInputError", async () => {
    expect(() => JSON.parse(cleanJSON('{"a":1,}'))).toThrow(SyntaxError);
    let ran = false;
    const t = tool({
      name: "t",
      description: "A test tool.",
      input: v.object({ a: v.number() }),
      run: () => {
        ran = true;
      },
    });
    for (const raw of ['{"a":1,}', '```json\n{"a":1,}\n```', 'args: {"a":[1,2,],}']) {
      const r = await settle(t.call(raw, { signal: new AbortController().signal, callId: "c", logger: silentLogger }));
      expect(r.ok).toBe(false);
      expect((r.ok ? {} : r.error) as object).toMatchObject({ code: "failed_unmarshal_input" });
    }
    expect(ran).toBe(false);
  });

  it("is not fooled by braces and quotes inside strings", () => {
    expect(parsed('Call: {"q":"a } b { c","r":"say \\"}\\" now"} done')).toEqual({ q: "a } b { c", r: 'say "}" now' });
    expect(parsed('prefix {"path":"C:\\\\dir\\\\"} suffix }')).toEqual({ path: "C:\\dir\\" });
  });

  it("takes the first complete object when several JSON values follow each other", () => {
    expect(parsed('{"a":1}{"b":2}')).toEqual({ a: 1 });
    expect(parsed('{"a":1}\n{"b":2}')).toEqual({ a: 1 });
    expect(parsed('[1,2] then {"a":{"b":{}}} and {"c":3}')).toEqual({ a: { b: {} } });
  });

  it('maps "" (and a whitespace-only or empty-fenced input) to {}', () => {
    expect(cleanJSON("")).toBe("{}");
    expect(cleanJSON("  \n\t")).toBe("{}");
    expect(cleanJSON("\uFEFF")).toBe("{}");
    expect(cleanJSON("```json\n```")).toBe("{}");
  });

  it("does not take ``` inside a JSON string for a fence", () => {
    expect(parsed('{"code":"```x```"} trailing words')).toEqual({ code: "```x```" });
    expect(parsed('{"md":"```js\\nlet a = 1\\n```"}, as requested')).toEqual({ md: "```js\nlet a = 1\n```" });
    expect(parsed('```json\n{"md":"``` inside"}\n```')).toEqual({ md: "``` inside" });
  });

  it("returns something JSON.parse rejects when there is no JSON at all (never throws itself)", () => {
    for (const raw of ["no json here", "{ unbalanced", "```", "}{"]) {
      expect(() => cleanJSON(raw)).not.toThrow();
      expect(() => JSON.parse(cleanJSON(raw))).toThrow(SyntaxError);
    }
  });
});
