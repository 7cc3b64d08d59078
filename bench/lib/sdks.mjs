// What is measured: every SDK, the provider formats it speaks, and what each agent module
// (bench/agents/<file>.mjs) can do. A cell that is not measured says why (shown in RESULTS.md).

export const FORMAT_NAMES = {
  anthropic: "Anthropic Messages",
  chat: "OpenAI Chat",
  responses: "OpenAI Responses",
  gemini: "Gemini",
};

/**
 * files[format] = agent module name, or a string starting with "—" saying why there is none.
 * loop: which loop modes its modules export; decode: whether they export decode().
 * packages: npm packages whose versions RESULTS.md lists (from bench/node_modules).
 */
export const SDKS = [
  {
    id: "toolloop",
    name: "toolloop",
    packages: [],
    files: { anthropic: "toolloop-anthropic", chat: "toolloop-chat", responses: "toolloop-responses", gemini: "toolloop-gemini" },
    modes: ["json", "stream"],
  },
  {
    id: "raw",
    name: "hand-written fetch loop",
    packages: ["eventsource-parser"],
    files: { anthropic: "raw-anthropic", chat: "raw-chat", responses: "raw-responses", gemini: "raw-gemini" },
    modes: ["json", "stream"],
  },
  {
    id: "ai-sdk",
    name: "Vercel AI SDK",
    packages: ["ai", "@ai-sdk/anthropic", "@ai-sdk/openai", "@ai-sdk/google", "zod"],
    files: { anthropic: "ai-sdk-anthropic", chat: "ai-sdk-chat", responses: "ai-sdk-responses", gemini: "ai-sdk-gemini" },
    modes: ["json", "stream"],
  },
  {
    id: "openai-sdk",
    name: "openai",
    packages: ["openai", "zod"],
    files: {
      anthropic: "— not an Anthropic client",
      chat: "openai-sdk-chat",
      responses: "openai-sdk-responses",
      gemini: "— not a Gemini client",
    },
    modes: ["json", "stream"],
    // openai-sdk-responses only streams one call (decode): openai 6.x has no Responses tool runner.
    noLoop: { responses: "— no tool runner for the Responses API in openai 6.x" },
  },
  {
    id: "anthropic-sdk",
    name: "@anthropic-ai/sdk",
    packages: ["@anthropic-ai/sdk", "zod"],
    files: {
      anthropic: "anthropic-sdk-anthropic",
      chat: "— Anthropic only",
      responses: "— Anthropic only",
      gemini: "— Anthropic only",
    },
    modes: ["json", "stream"],
  },
  {
    id: "pi-ai",
    name: "@mariozechner/pi-ai",
    packages: ["@mariozechner/pi-ai"],
    files: { anthropic: "pi-ai-anthropic", chat: "pi-ai-chat", responses: "pi-ai-responses", gemini: "pi-ai-gemini" },
    modes: ["stream"],
    noJSON: "— every pi-ai provider streams",
  },
  {
    id: "openai-agents",
    name: "@openai/agents",
    packages: ["@openai/agents", "openai", "zod"],
    files: {
      anthropic: "— OpenAI models only",
      chat: "openai-agents-chat",
      responses: "openai-agents-responses",
      gemini: "— OpenAI models only",
    },
    modes: ["json", "stream"],
  },
];

export const isFile = (f) => typeof f === "string" && !f.startsWith("—");

/** Every (sdk, format, file) that has an agent module. */
export function cells() {
  const out = [];
  for (const sdk of SDKS) for (const [format, file] of Object.entries(sdk.files)) if (isFile(file)) out.push({ sdk, format, file });
  return out;
}

/** The loop modes a cell runs, or the reason it runs none. */
export function loopModes(sdk, format) {
  if (sdk.noLoop?.[format]) return [];
  return sdk.modes;
}

/** The export the size measurement calls: the smallest loop the SDK offers (JSON where it has one). */
export function sizeExport(sdk, format) {
  if (sdk.noLoop?.[format]) return undefined;
  return sdk.modes.includes("json") ? "jsonAgent" : "streamAgent";
}
