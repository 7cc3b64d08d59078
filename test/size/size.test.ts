// The size budget: a minimal toolloop agent (one valibot tool, createClient, one chat loop)
// per adapter, bundled from the repo sources the way a browser app ships it (esbuild,
// minified, platform browser, gzip -9). The programs are the ones `npm run bench` measures
// (bench/agents/toolloop-*.mjs), so the README's figure and this budget cannot drift apart.
// A size check, not a timing.
//
// The target is 16 KiB and is not met yet (bench/RESULTS.md and the README say why:
// @valibot/to-json-schema alone is ~3 KiB of it). Each budget is today's size plus about
// half a KiB, so no change can grow a bundle quietly; lower a budget when a bundle shrinks.
import { describe, expect, it } from "vitest";
import { bundleSize } from "../../bench/lib/bundle.mjs";

const TARGET = 16 * 1024;
const KiB = 1024;

/** adapter → the bench agent module, a string only that adapter's code holds, and its budget. */
const AGENTS: Record<string, { file: string; marker: string; budget: number }> = {
  "claude()": { file: "toolloop-anthropic", marker: "api.anthropic.com", budget: 19 * KiB },
  "openai() (Responses)": { file: "toolloop-responses", marker: "/responses", budget: 21.5 * KiB },
  'openai({ api: "chat" })': { file: "toolloop-chat", marker: "/chat/completions", budget: 21.5 * KiB },
  "openaiCompatible()": { file: "toolloop-compatible", marker: "/chat/completions", budget: 19.5 * KiB },
  "gemini()": { file: "toolloop-gemini", marker: ":streamGenerateContent", budget: 19.5 * KiB },
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

  it("measures what it bundles: a bigger program measures bigger", async () => {
    const agent = await bundleSize("./agents/toolloop-anthropic.mjs");
    const floor = await bundleSize("./agents/raw-anthropic.mjs");
    expect(floor.gzip).toBeGreaterThan(0);
    expect(agent.gzip).toBeGreaterThan(floor.gzip);
    expect(agent.minified).toBeGreaterThan(agent.gzip);
  });
});
