// A file-reading agent with Deno-native tools (Deno.readDir, Deno.readTextFile), confined
// to one folder by Deno's own permissions:
//
//   deno run --allow-read=. --allow-env --allow-net examples/deno/main.ts [folder] [question]
//
// With ANTHROPIC_API_KEY or OPENAI_API_KEY set it asks that provider (model: TOOLLOOP_MODEL;
// endpoint: TOOLLOOP_BASE_URL); with neither it runs offline against the scripted provider.

import { createClient, type Provider, tool } from "toolloop";
import { type RecordedRequest, scriptedProvider } from "toolloop/testing";
import * as v from "valibot";

const [folder = ".", ...rest] = Deno.args;
const root = await Deno.realPath(folder);

/** Resolves a path the model gave inside `root`; anything outside is refused. */
async function inside(path: string): Promise<string> {
  const full = await Deno.realPath(`${root}/${path}`);
  if (full !== root && !full.startsWith(`${root}/`)) throw new Error(`${path} is outside the folder`);
  return full;
}

const listFiles = tool({
  name: "list_files",
  description: "Lists the entries of a folder (relative to the working folder).",
  input: v.object({ path: v.optional(v.string(), ".") }),
  run: async ({ path }) => {
    const entries: string[] = [];
    for await (const e of Deno.readDir(await inside(path))) entries.push(e.isDirectory ? `${e.name}/` : e.name);
    return entries.sort();
  },
});

const readFile = tool({
  name: "read_file",
  description: "Reads a text file (relative to the working folder); long files are cut at 4000 characters.",
  input: v.object({ path: v.string() }),
  run: async ({ path }) => (await Deno.readTextFile(await inside(path))).slice(0, 4000),
});

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined; // no --allow-env: behave as if unset
  }
}

async function chooseProvider(): Promise<Provider | undefined> {
  const model = env("TOOLLOOP_MODEL");
  const baseURL = env("TOOLLOOP_BASE_URL");
  const anthropic = env("ANTHROPIC_API_KEY");
  if (anthropic) {
    const { claude } = await import("toolloop/claude");
    return claude({ apiKey: anthropic, model: model ?? "claude-sonnet-4-5", baseURL });
  }
  const openaiKey = env("OPENAI_API_KEY");
  if (openaiKey) {
    const { openai } = await import("toolloop/openai");
    return openai({ apiKey: openaiKey, model: model ?? "gpt-5-mini", baseURL });
  }
  return undefined;
}

/** Offline: list the folder, read its first file, then describe it from what the tools returned. */
function offline(): Provider {
  const lastResult = (r: RecordedRequest) => {
    const m = r.messages.at(-1);
    return m?.role === "tool" ? m.results[0]!.output : "";
  };
  let files: string[] = [];
  return scriptedProvider([
    { toolCalls: [{ name: "list_files", arguments: { path: "." } }] },
    (r) => {
      files = (JSON.parse(lastResult(r)) as string[]).filter((f) => !f.endsWith("/"));
      return files.length ? { toolCalls: [{ name: "read_file", arguments: { path: files[0] } }] } : "The folder has no files.";
    },
    (r) => {
      const firstLine = lastResult(r).split("\n")[0];
      return `The folder holds ${files.length} file(s): ${files.join(", ")}. ${files[0]} begins with: "${firstLine}"`;
    },
  ]);
}

let provider = await chooseProvider();
if (!provider) {
  console.log("No provider key found (ANTHROPIC_API_KEY, OPENAI_API_KEY): running offline against the scripted provider.");
  provider = offline();
} else console.log(`Using ${provider.name} (${provider.model}).`);

const client = createClient({ provider, tools: [listFiles, readFile], systemPrompt: `You answer questions about the files in ${root}.` });
const question = rest.join(" ") || "What is in this folder? Read the first file.";
for await (const e of client.stream(question)) {
  if (e.type === "tool-call") console.log(`tool call: ${e.name}(${e.arguments})`);
  if (e.type === "finish") console.log(`answer: ${e.text}`);
}
