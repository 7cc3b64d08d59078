// The tool set a client holds. Names are lower-cased once here, and that one name is the
// registry key, the name sent to the model and the key a model's call is looked up by.
import { InvalidToolError, InvalidToolNameError, ToolNameCollisionError } from "../base/index.js";
import type { ToolSpec } from "../conversation/index.js";
import { checkDescription } from "./describe.js";
import type { Tool } from "./tool.js";

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The reserved name: a tool called this attaches the provider's native web search. */
export const WEB_SEARCH = "web_search";

export interface Registry {
  tools: ReadonlyMap<string, Tool>;
  /** Function tools as sent to the model (web_search excluded). */
  specs: readonly ToolSpec[];
  webSearch: boolean;
}

export function createRegistry(tools: readonly Tool[]): Registry {
  const map = new Map<string, Tool>();
  const original = new Map<string, string>();
  const specs: ToolSpec[] = [];
  let webSearch = false;
  for (const t of tools) {
    if (typeof t !== "object" || t === null || typeof t.call !== "function") {
      throw new InvalidToolError("setTools expects Tool objects (name, description, parameters, call)");
    }
    if (typeof t.name !== "string" || !NAME.test(t.name)) throw new InvalidToolNameError(String(t.name));
    checkDescription(t.name, t.description);
    // 0, a negative number or NaN would silently mean no timeout at all.
    const ms = t.timeout;
    if (ms !== undefined && !(typeof ms === "number" && ms > 0 && ms < Infinity))
      throw new InvalidToolError(`tool "${t.name}": timeout must be a positive number of ms`);
    const key = t.name.toLowerCase();
    const seen = original.get(key);
    if (seen !== undefined) throw new ToolNameCollisionError(seen, t.name);
    original.set(key, t.name);
    if (key === WEB_SEARCH) {
      webSearch = true;
      continue;
    }
    map.set(key, t);
    // Tool input is an object by contract; a schema served without `type` (MCP servers may) says
    // so explicitly for the providers that require it. The Tool keeps its schema as given.
    const p = t.parameters;
    specs.push({ name: key, description: t.description, parameters: p && p.type === undefined ? { type: "object", ...p } : p });
  }
  return { tools: map, specs, webSearch };
}

/**
 * The marker tool for the provider's native web search (Claude web_search_20250305,
 * OpenAI Responses web_search, Gemini googleSearch). The provider runs the search; this
 * tool's call is never used.
 */
export function webSearch(): Tool {
  return {
    name: WEB_SEARCH,
    description: "The provider's native web search.",
    parameters: { type: "object", properties: {} },
    call: async () => {
      throw new Error("web_search runs at the provider, not locally");
    },
  };
}
