// The test-only YAML reader, checked against files PROVENANCE.md says were extracted from
// the cassettes by another tool: each <cassette>.<n>.response.json is interaction n's
// parsed_body, and each <cassette>.<n>.sse is interaction n's body.string, byte for byte.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FIXTURES } from "./support/fixtures.js";
import { parseYAML } from "./support/yaml.js";

interface Cassette {
  interactions: { response: { parsed_body?: unknown; body?: { string: string }; status: { code: number } } }[];
}

describe("parseYAML", () => {
  for (const dir of ["chat/pydantic-ai", "responses/pydantic-ai"]) {
    const files = readdirSync(`${FIXTURES}/${dir}`);
    for (const name of files.filter((f) => f.endsWith(".yaml"))) {
      it(`reads ${dir}/${name} exactly as the extracted files say`, () => {
        const stem = name.slice(0, -".yaml".length);
        const cassette = parseYAML(readFileSync(`${FIXTURES}/${dir}/${name}`, "utf8")) as Cassette;
        let compared = 0;
        cassette.interactions.forEach((interaction, i) => {
          const json = `${stem}.${i + 1}.response.json`;
          const sse = `${stem}.${i + 1}.sse`;
          if (files.includes(json)) {
            expect(interaction.response.parsed_body).toEqual(JSON.parse(readFileSync(`${FIXTURES}/${dir}/${json}`, "utf8")));
            compared++;
          }
          if (files.includes(sse)) {
            expect(interaction.response.body!.string).toBe(readFileSync(`${FIXTURES}/${dir}/${sse}`, "utf8"));
            compared++;
          }
        });
        expect(compared).toBeGreaterThan(0);
      });
    }
  }

  it("reads the scalar and collection forms it claims to", () => {
    const doc = parseYAML(
      [
        "a: plain text # comment",
        "b: 'it''s'",
        'c: "tab\\tand \\u00e9"',
        "d: |",
        "  line 1",
        "    indented",
        "",
        "e: >-",
        "  folded",
        "  text",
        "",
        "  para",
        "f: [1, two, {x: y}, []]",
        "g:",
        "- k: 1",
        "  l: null",
        "- - nested",
        "-",
        "  deep: true",
        "h: multi",
        "  line plain",
        "'quoted key': 3.5",
        "...",
        "ignored: after the document end",
      ].join("\n"),
    );
    expect(doc).toEqual({
      a: "plain text",
      b: "it's",
      c: "tab\tand é",
      d: "line 1\n  indented\n",
      e: "folded text\npara",
      f: [1, "two", { x: "y" }, []],
      g: [{ k: 1, l: null }, ["nested"], { deep: true }],
      h: "multi line plain",
      "quoted key": 3.5,
    });
  });

  it("refuses what it does not understand instead of guessing", () => {
    expect(() => parseYAML("a: 1\n  b: 2\n")).toThrow(SyntaxError);
    expect(() => parseYAML("a: [1, 2\n")).toThrow(SyntaxError);
    expect(() => parseYAML("a: 1\na: 2\n")).toThrow(/duplicate/);
  });
});
