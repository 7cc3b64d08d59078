import { describe, expect, it } from "vitest";
import { cassette, fixtureFiles, fixtureJSON, fixtureText } from "./recordings.js";
import { parseYaml } from "./yaml.js";

describe("the test-only YAML reader", () => {
  it("reads mappings, sequences at the key's indentation, quoted and block scalars", () => {
    const doc = parseYaml(
      [
        "a:",
        "- b: 1",
        "  c: 'it''s'",
        "- - x",
        "  - -2.5e-3",
        "d: |-",
        "  line 1",
        "    line 2",
        'e: "folded',
        '  \\"text\\"\\r\\n"',
        "f: {}",
        "g: true",
        "h: plain text",
        "  continued",
      ].join("\n"),
    );
    expect(doc).toEqual({
      a: [{ b: 1, c: "it's" }, ["x", -0.0025]],
      d: "line 1\n  line 2",
      e: 'folded "text"\r\n',
      f: {},
      g: true,
      h: "plain text continued",
    });
  });

  const cassettes = fixtureFiles("pydantic-ai").filter((f) => f.endsWith(".yaml"));
  it.each(cassettes)("%s agrees with the files extracted from it", (file) => {
    const interactions = cassette(file);
    expect(interactions.length).toBeGreaterThan(0);
    const stem = file.replace(/\.yaml$/, "");
    const extracted = fixtureFiles("pydantic-ai").filter((f) => f.startsWith(stem + "."));
    let checked = 0;
    interactions.forEach((it, k) => {
      const n = k + 1;
      expect(it.request.method).toBe("POST");
      expect(it.request.parsed_body).toHaveProperty("contents");
      if (extracted.includes(`${stem}.${n}.sse`)) {
        expect(it.response.body!.string).toBe(fixtureText(`${stem}.${n}.sse`));
        checked++;
      }
      if (extracted.includes(`${stem}.${n}.response.json`)) {
        expect(it.response.parsed_body).toEqual(fixtureJSON(`${stem}.${n}.response.json`));
        checked++;
      }
    });
    expect(checked).toBe(extracted.length - 1);
  });
});
