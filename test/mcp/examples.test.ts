// examples/mcp-node run as a user runs it (`node server.mjs`), with toolloop resolved to
// the working tree's sources, checked with the official SDK client. (examples/mcp-worker
// is checked in workerd by handler-workerd.test.ts.)
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root, sdkClient, tmp, unpooledFetch } from "./helpers.js";

type TextBlock = { type: string; text: string };

async function bundleNodeExample(): Promise<string> {
  const sources: Record<string, string> = { toolloop: "src/index.ts", "toolloop/mcp": "adapters/mcp/index.ts", "toolloop/node": "hosts/node/index.ts" };
  const out = join(tmp, `mcp-node-server-${process.pid}.mjs`);
  const result = await build({
    entryPoints: [join(root, "examples/mcp-node/server.mjs")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "silent",
    plugins: [
      { name: "toolloop-from-source", setup: (b) => b.onResolve({ filter: /^toolloop(\/mcp|\/node)?$/ }, (a) => ({ path: join(root, sources[a.path]!) })) },
    ],
  });
  writeFileSync(out, result.outputFiles[0]!.text);
  return out;
}

/** Starts the example on an ephemeral port; resolves with the URL it prints. */
function start(file: string, env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [file], { env: { ...process.env, PORT: "0", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.stderr!.on("data", (d) => (out += d));
    child.on("exit", (code) => reject(new Error(`example exited with ${code}:\n${out}`)));
  });
}

describe("examples/mcp-node", () => {
  const children: ChildProcess[] = [];
  let file: string;
  beforeAll(async () => {
    file = await bundleNodeExample();
  }, 60_000);
  afterAll(() => {
    for (const c of children) c.kill();
    rmSync(file, { force: true });
  });

  it("serves its tool over MCP on node:http", async () => {
    const { url, child } = await start(file);
    children.push(child);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await sdkClient(url);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["convert_temperature"]);
      const r = await client.callTool({ name: "convert_temperature", arguments: { value: 212, to: "celsius" } });
      expect(JSON.parse((r.content as TextBlock[])[0]!.text)).toEqual({ value: 100, unit: "celsius" });
    } finally {
      await client.close();
    }
  });

  it("with MCP_TOKEN, refuses clients without the bearer token", async () => {
    const { url, child } = await start(file, { MCP_TOKEN: "node-secret" });
    children.push(child);
    // New connections: a refusal sent before the body was read may close its socket (see unpooledFetch).
    await expect(sdkClient(url, {}, { fetch: unpooledFetch })).rejects.toThrow(/401|Unauthorized/);
    const client = await sdkClient(url, { authorization: "Bearer node-secret" }, { fetch: unpooledFetch });
    try {
      expect((await client.listTools()).tools).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
