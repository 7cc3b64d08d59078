// What a minimal toolloop agent pays for, module by module and feature by feature:
//   node bench/lib/size-report.mjs            (all five agents, markdown tables)
//   node bench/lib/size-report.mjs anthropic  (one agent)
// Per module: bytes in the minified bundle and an estimate of their gzip share. Per feature:
// the real gzip difference when the feature's modules are replaced by empty stubs (a what-if
// build, never run), which is what making that feature tree-shake would save.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bundleSize, repoRoot } from "./bundle.mjs";

const AGENTS = ["anthropic", "responses", "chat", "compatible", "gemini"];

/** Features of 0.2 (and older weight) by the modules that hold them. */
export const FEATURES = {
  "suspension (decisions, pending; only with suspension())": ["src/suspension/suspension.ts"],
  "signing (secret)": ["src/suspension/sign.ts"],
  tracing: ["src/cost/trace.ts"],
  compaction: ["src/cost/compaction.ts"],
  pricing: ["src/cost/pricing.ts"],
  "valibot → JSON Schema (@valibot/to-json-schema)": ["node_modules/@valibot/to-json-schema/dist/index.mjs"],
  "SSE parser (eventsource-parser and src/http/sse.ts)": ["node_modules/eventsource-parser/dist/index.js", "src/http/sse.ts"],
  "unknown-option checks": ["src/base/options.ts"],
  "history checks": ["src/conversation/history.ts"],
  "key redaction (secrets)": ["src/base/secrets.ts"],
  "Claude structured output (ask)": ["adapters/claude/structured-output.ts", "adapters/claude/output-schema.ts"],
  "Claude prompt caching": ["adapters/claude/cache.ts"],
  "Claude content parts": ["adapters/claude/content.ts"],
  "OpenAI Chat Completions codec": ["adapters/openai/chat-decode.ts", "adapters/openai/chat-encode.ts"],
  "OpenAI Responses codec": ["adapters/openai/responses-decode.ts", "adapters/openai/responses-encode.ts"],
  "OpenAI strict mode": ["adapters/openai/strict-schema.ts", "adapters/openai/strict-mode.ts", "adapters/openai/restore-nulls.ts"],
  "OpenAI content parts": ["adapters/openai/content.ts"],
  "Gemini media parts": ["adapters/gemini/media.ts"],
};

/** A module with every export kept but empty: enough for esbuild to bundle the importers. */
function stub(file) {
  const src = readFileSync(join(repoRoot, file), "utf8");
  const names = new Set();
  for (const m of src.matchAll(/^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)/gm)) names.add(m[1]);
  // A library's build lists its exports at the end: export { a, b as c };
  for (const m of src.matchAll(/^export\s*\{([^}]*)\}/gm))
    for (const part of m[1].split(","))
      if (part.trim())
        names.add(
          part
            .trim()
            .split(/\s+as\s+/)
            .pop(),
        );
  return [...names].map((n) => `export const ${n} = undefined;`).join("\n") || "export {};";
}

const stubbing = (files) => ({
  name: "stub-modules",
  setup(b) {
    const wanted = new Set(files.map((f) => join(repoRoot, f)));
    b.onLoad({ filter: /\.(ts|m?js)$/ }, (args) =>
      wanted.has(args.path) ? { contents: stub(args.path.slice(repoRoot.length + 1)), loader: "ts" } : undefined,
    );
  },
});

export async function report(agent) {
  const file = `./agents/toolloop-${agent}.mjs`;
  const full = await bundleSize(file);
  const out = Object.values(full.metafile.outputs)[0];
  const ratio = full.gzip / full.minified;
  const modules = Object.entries(out.inputs)
    .map(([path, v]) => ({ path: path.replace(/.*node_modules\//, ""), minified: v.bytesInOutput, gzipEstimate: Math.round(v.bytesInOutput * ratio) }))
    .filter((m) => m.minified > 0)
    .sort((a, b) => b.minified - a.minified);
  const features = [];
  for (const [name, files] of Object.entries(FEATURES)) {
    const present = files.filter((f) => Object.keys(out.inputs).includes(f));
    if (!present.length) continue;
    const without = await bundleSize(file, "jsonAgent", [stubbing(present)]);
    features.push({ name, files: present, gzipSaved: full.gzip - without.gzip, minifiedSaved: full.minified - without.minified });
  }
  return { agent, gzip: full.gzip, minified: full.minified, modules, features };
}

const kib = (n) => `${(n / 1024).toFixed(2)} KiB`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const which = process.argv[2] ? [process.argv[2]] : AGENTS;
  for (const agent of which) {
    const r = await report(agent);
    console.log(`\n### toolloop-${agent}: ${kib(r.gzip)} gzip (${r.minified} B minified)\n`);
    console.log("| module | minified B | ≈ gzip B |\n| --- | ---: | ---: |");
    for (const m of r.modules) console.log(`| ${m.path} | ${m.minified} | ${m.gzipEstimate} |`);
    console.log("\n| feature (stubbed out) | gzip saved | minified saved |\n| --- | ---: | ---: |");
    for (const f of r.features) console.log(`| ${f.name} | ${f.gzipSaved} | ${f.minifiedSaved} |`);
  }
}
