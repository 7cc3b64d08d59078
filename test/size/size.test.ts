// The size budget: a minimal toolloop agent (one valibot tool, createClient, one chat loop)
// per adapter, bundled from the repo sources the way a browser app ships it (esbuild,
// minified, platform browser, gzip -9). The programs are the ones `npm run bench` measures
// (bench/agents/toolloop-*.mjs), so the README's figure and this budget cannot drift apart.
// A size check, not a timing.
//
// The target is 16 KiB and is not met (bench/BUDGETS.md has the per-module and per-feature
// table from bench/lib/size-report.mjs, and what it would take). Each budget is the size
// measured on 2026-12-01 after toolloop's own JSON Schema converter and SSE parser replaced
// @valibot/to-json-schema and eventsource-parser, plus a quarter KiB, so no change can grow
// a bundle quietly; lower a budget when a bundle shrinks. Raised once since, by 0.1-0.2 KiB
// (later that day): fixes every agent needs, from outside audits (a tool's media the API
// cannot take sent as a note instead of failing every later request, an approval's edited
// input replayed, a key in `headers` redacted, typed option errors, not-run calls'
// tool-result events, hand-written tools' values JSON-encoded, tool timeouts checked) grew
// each agent by 0.26-0.39 KiB, more than the slack left.
import { describe, expect, it } from "vitest";
import { bundleSize } from "../../bench/lib/bundle.mjs";

const TARGET = 16 * 1024;
const KiB = 1024;

/** adapter → the bench agent module, a string only that adapter's code holds, and its budget. */
const AGENTS: Record<string, { file: string; marker: string; budget: number }> = {
  "claude()": { file: "toolloop-anthropic", marker: "api.anthropic.com", budget: 21.2 * KiB },
  "openai() (Responses)": { file: "toolloop-responses", marker: "/responses", budget: 22.2 * KiB },
  "openaiChat()": { file: "toolloop-chat", marker: "/chat/completions", budget: 21.3 * KiB },
  "openaiCompatible()": { file: "toolloop-compatible", marker: "/chat/completions", budget: 21.0 * KiB },
  "gemini()": { file: "toolloop-gemini", marker: ":streamGenerateContent", budget: 21.9 * KiB },
};

describe("bundle size budget", () => {
  for (const [adapter, { file, marker, budget }] of Object.entries(AGENTS)) {
    it(`a minimal ${adapter} agent stays within its budget (${budget / KiB} KiB gzipped; target ${TARGET / KiB} KiB)`, async () => {
      const r = await bundleSize(`./agents/${file}.mjs`);
      // The measured bundle really holds the agent: the adapter, the loop and the tool's schema.
      expect(r.code).toContain(marker);
      expect(r.code).toContain("get_weather");
      expect(r.code).toContain("tool-calls");
      expect(r.nodeImports).toEqual([]);
      expect(r.gzip, `${adapter}: ${r.gzip} bytes gzipped (${r.minified} minified), budget ${budget}`).toBeLessThanOrEqual(budget);
    });
  }

  it("no agent ships a general-purpose JSON Schema converter or SSE library (toolloop has its own small ones)", async () => {
    for (const { file } of Object.values(AGENTS)) {
      const inputs = Object.keys(Object.values((await bundleSize(`./agents/${file}.mjs`)).metafile.outputs)[0]!.inputs);
      expect(inputs.filter((p) => /@valibot\/to-json-schema|eventsource-parser/.test(p)), file).toEqual([]);
      expect(inputs, file).toContain("src/valibot-json-schema.ts");
      expect(inputs, file).toContain("src/sse.ts");
    }
  });

  it("0.2 features a minimal agent does not use stay out of it (suspension and signing, tracing, compaction, fallback, stop conditions, external tools, raw JSON Schema validation)", async () => {
    const shaken = ["src/suspension.ts", "src/sign.ts", "src/trace.ts", "src/compaction.ts", "src/fallback.ts", "src/stop.ts", "src/external-tool.ts", "src/json-schema.ts", "src/testing.ts"];
    for (const { file } of Object.values(AGENTS)) {
      const inputs = Object.keys(Object.values((await bundleSize(`./agents/${file}.mjs`)).metafile.outputs)[0]!.inputs);
      expect(inputs.filter((p) => shaken.includes(p) || p.includes("@cfworker/json-schema")), file).toEqual([]);
    }
  });

  it("each OpenAI factory ships only its own wire format's codec", async () => {
    const inputs = async (file: string) => Object.keys(Object.values((await bundleSize(`./agents/${file}.mjs`)).metafile.outputs)[0]!.inputs);
    const codec = (api: string) => (p: string) => p.startsWith(`adapters/openai/${api}-`);
    const responses = await inputs("toolloop-responses");
    expect(responses.filter(codec("responses")).length).toBeGreaterThan(0);
    expect(responses.filter(codec("chat"))).toEqual([]);
    for (const file of ["toolloop-chat", "toolloop-compatible"]) {
      const chat = await inputs(file);
      expect(chat.filter(codec("chat")).length, file).toBeGreaterThan(0);
      expect(chat.filter(codec("responses")), file).toEqual([]);
    }
  });

  it("measures what it bundles: a bigger program measures bigger", async () => {
    const agent = await bundleSize("./agents/toolloop-anthropic.mjs");
    const floor = await bundleSize("./agents/raw-anthropic.mjs");
    expect(floor.gzip).toBeGreaterThan(0);
    expect(agent.gzip).toBeGreaterThan(floor.gzip);
    expect(agent.minified).toBeGreaterThan(agent.gzip);
  });
});
