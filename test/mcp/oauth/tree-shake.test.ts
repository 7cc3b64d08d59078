// oauth() costs nothing to an app that does not use it: a browser bundle of mcpTools from
// toolloop/mcp holds no file of adapters/mcp/oauth/ and is byte for byte the bundle of mcpTools
// imported from its own module; one that uses oauth() holds it, and no node: import.
import { join } from "node:path";
import { build } from "esbuild";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..", "..");

async function bundle(contents: string): Promise<{ code: string; inputs: string[] }> {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: "ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    metafile: true,
    logLevel: "silent",
    external: ["valibot", "@cfworker/json-schema", "@valibot/to-json-schema", "eventsource-parser"],
  });
  // The files with bytes in the output (metafile.inputs also lists files read and then shaken out).
  const output = Object.values(result.metafile.outputs)[0]!.inputs;
  return { code: result.outputFiles[0]!.text, inputs: Object.keys(output).filter((f) => output[f]!.bytesInOutput > 0) };
}

it("mcpTools without oauth() ships none of it, at the same size as mcpTools alone", async () => {
  const viaIndex = await bundle(`import { mcpTools } from "./adapters/mcp/index.ts"; mcpTools({ url: "https://x.example/mcp" }).then(console.log);`);
  const direct = await bundle(`import { mcpTools } from "./adapters/mcp/client/tools.ts"; mcpTools({ url: "https://x.example/mcp" }).then(console.log);`);
  expect(viaIndex.inputs.filter((f) => f.includes("adapters/mcp/oauth/"))).toEqual([]);
  expect(viaIndex.code.length).toBe(direct.code.length);
});

it("with oauth() the client is in, and it imports nothing from node:", async () => {
  const { code, inputs } = await bundle(
    `import { mcpTools, oauth } from "./adapters/mcp/index.ts"; mcpTools({ url: "https://x.example/mcp", auth: oauth({ redirectUri: "https://a.example/cb", redirect: async () => undefined }) }).then(console.log);`,
  );
  expect(inputs).toEqual(expect.arrayContaining(["adapters/mcp/oauth/fetch.ts", "adapters/mcp/oauth/discovery.ts", "adapters/mcp/oauth/pkce.ts"]));
  expect(inputs.filter((f) => f.startsWith("node:") || /\bnode_modules\/@types\/node\b/.test(f))).toEqual([]);
  expect(code).not.toMatch(/from\s*"node:|require\("node:|\bBuffer\.|\bprocess\./);
});
