// mcpPins(): pinned tool definitions for mcpTools() ("rug pull" protection). A remote server can
// change a tool's description or schema after a person approved it; the pins, saved beside the
// conversation and signed, name the definition of every approved tool by its fingerprint. A
// listed tool whose definition is not the pinned one, and a tool the pins do not know, is not
// offered to the model until approve() pins it; with no saved pins (first use) every listed tool
// is trusted and pinned. When the server says its list changed (tools/list_changed), the next
// call re-lists first, and a call to a tool whose definition is no longer the one offered is
// refused (ToolChangedError, which the model reads) without being sent.
import { checkOptions, InvalidOptionsError, isRecord, type Logger, sameSignature, silentLogger } from "../../../src/base/index.js";
import type { Tool } from "../../../src/tools/index.js";
import type { ListedTool, McpChangedTool, McpPins, PinAttachment, SavedPins } from "../client/pins.js";
import { InvalidPinsError, ToolChangedError } from "./errors.js";
import { fingerprint, type PinSigner, pinSigner, sealPins, serverOf } from "./sign.js";

export interface McpPinsOptions {
  /** The HMAC key that signs and checks the pins: a string of at least 32 characters or an HMAC CryptoKey. */
  secret?: string | CryptoKey | undefined;
  /** true: pins are saved and read unsigned (only where nobody else can edit what the app saved). */
  unsigned?: boolean | undefined;
  /** The pins saved last time (`value`); null or left out on first use, when every listed tool is trusted and pinned. */
  saved?: SavedPins | null | undefined;
}

/** Pins for one mcpTools() call: pass them as its `pins`, then save `value` beside the history. */
export function mcpPins(options: McpPinsOptions): McpPins {
  checkOptions("mcpPins()", options, "secret unsigned saved");
  if (!isRecord(options)) throw new InvalidOptionsError("mcpPins() takes { secret, saved } or { unsigned: true, saved }");
  const sign = pinSigner(options, "secret" in options);
  const saved = options.saved ?? undefined;
  let server: string | undefined;
  let offered = false;
  /** Remote tool name → the fingerprint approved for it. */
  let pinned = new Map<string, string>();
  let value: SavedPins | undefined;
  let changed: McpChangedTool[] = [];
  let logger: Logger = silentLogger;
  // Set by tools/list_changed; the next guarded call re-lists (one re-list shared by the calls that wait for it).
  let stale = false;
  let refreshing: Promise<void> | undefined;
  /** Remote tool name → the fingerprints it is listed with now (a name may be listed twice). */
  let current = new Map<string, string[]>();

  async function attach(url: string): Promise<PinAttachment> {
    const at = serverOf(url);
    if (offered) throw new InvalidOptionsError(`mcpPins(): these pins already serve a tool set (for ${server}); make one mcpPins() per mcpTools() call`);
    server = at;
    pinned = saved === undefined ? new Map() : await opened(saved, at, sign);
    return { notified, offer };
  }

  function notified(method: string): void {
    if (method !== "notifications/tools/list_changed") return;
    if (!stale) logger.info("mcp tools list changed; the next call re-checks the pinned definitions", { server });
    stale = true;
  }

  /** Reads a listing: which tools differ from their pins (or are new), and the pins without tools no longer listed. */
  async function review(listed: readonly ListedTool[]): Promise<string[]> {
    const prints = await Promise.all(listed.map((t) => fingerprint(t.definition)));
    current = new Map();
    listed.forEach((t, i) => {
      const name = t.definition.name as string;
      current.set(name, [...(current.get(name) ?? []), prints[i]!]);
    });
    for (const name of [...pinned.keys()]) if (!current.has(name)) pinned.delete(name);
    const before = new Set(changed.map((c) => `${c.name}\n${c.now}`));
    changed = [];
    listed.forEach((t, i) => {
      const name = t.definition.name as string;
      const pin = pinned.get(name);
      if (pin === prints[i] || changed.some((c) => c.name === name && c.now === prints[i])) return;
      changed.push({ name, pinned: pin, now: prints[i]!, definition: t.definition });
      if (!before.has(`${name}\n${prints[i]}`)) {
        const reason = pin === undefined ? "it is new since the tools were pinned" : "its definition changed since it was pinned";
        logger.warn("mcp tool withheld until approved", { tool: name, reason });
      }
    });
    value = await sealPins(sign, server!, pinned);
    return prints;
  }

  async function offer(tools: readonly Tool[], listed: readonly ListedTool[], relist: (signal: AbortSignal) => Promise<readonly ListedTool[]>, log: Logger) {
    logger = log;
    // Trust on first use: with no saved pins, the tools as listed now are the approved ones.
    if (saved === undefined) {
      for (const t of listed) {
        const name = t.definition.name as string;
        if (!pinned.has(name)) pinned.set(name, await fingerprint(t.definition));
      }
    }
    const prints = await review(listed);
    offered = true;
    const out: Tool[] = [];
    tools.forEach((tool, i) => {
      const name = listed[i]!.definition.name as string;
      const print = prints[i]!;
      if (pinned.get(name) !== print) return;
      out.push({
        ...tool,
        call: async (input, ctx) => {
          // A call that comes while a re-list runs waits for it too, rather than trusting the listing before it.
          if (stale) await recheck(relist, ctx.signal);
          else if (refreshing) await refreshing;
          const now = current.get(name);
          if (!now?.includes(print)) throw changedError(name, print, now?.[0]);
          return tool.call(input, ctx);
        },
      });
    });
    return out;
  }

  async function recheck(relist: (signal: AbortSignal) => Promise<readonly ListedTool[]>, signal: AbortSignal): Promise<void> {
    refreshing ??= (async () => {
      stale = false;
      try {
        await review(await relist(signal));
      } catch (err) {
        stale = true; // not re-checked: the next call tries again, and this one fails with the reason
        throw err;
      }
    })().finally(() => {
      refreshing = undefined;
    });
    await refreshing;
  }

  async function approve(tools: readonly (string | { name: string; now: string })[]): Promise<SavedPins> {
    if (!offered) throw new InvalidOptionsError("mcpPins().approve(): pass the pins to mcpTools() first; approve() pins what it listed");
    if (!Array.isArray(tools)) throw new InvalidOptionsError("mcpPins().approve() takes a list of tool names or `changed` entries");
    const picked: McpChangedTool[] = [];
    for (const item of tools) {
      const name = typeof item === "string" ? item : isRecord(item) ? item.name : undefined;
      const entries = changed.filter((c) => c.name === name);
      if (entries.length === 0) {
        if (typeof name === "string" && pinned.has(name) && current.get(name)?.includes(pinned.get(name)!)) continue; // already approved
        const waiting = changed.map((c) => c.name).join(", ") || "none";
        throw new InvalidOptionsError(`mcpPins().approve(): no tool ${JSON.stringify(name)} waits for approval (waiting: ${waiting})`);
      }
      const shown = typeof item === "string" ? undefined : item.now;
      const entry = shown === undefined ? entries[0]! : entries.find((c) => c.now === shown);
      if (!entry) {
        throw new ToolChangedError(
          name as string,
          shown,
          entries[0]!.now,
          `mcp pins: the tool "${name}" changed again since its definition was shown; show the one in \`changed\` and approve that`,
        );
      }
      picked.push(entry);
    }
    for (const entry of picked) pinned.set(entry.name, entry.now);
    changed = changed.filter((c) => !picked.includes(c) && pinned.get(c.name) !== c.now);
    value = await sealPins(sign, server!, pinned);
    return value;
  }

  return {
    get value() {
      return value;
    },
    get changed() {
      return changed;
    },
    approve,
    attach,
  };
}

/** The saved pins as a map, once they are known to be for `server` and (with a secret) signed with it. */
async function opened(saved: unknown, server: string, sign: PinSigner): Promise<Map<string, string>> {
  const ok = isRecord(saved) && saved.v === 1 && typeof saved.server === "string" && isRecord(saved.tools);
  const tools = ok ? Object.entries(saved.tools as Record<string, unknown>) : [];
  if (!ok || tools.some(([, print]) => typeof print !== "string") || (saved.signature !== undefined && typeof saved.signature !== "string")) {
    throw new InvalidPinsError(
      "format",
      "the saved pins are not a pins value ({ v: 1, server, tools: { name: fingerprint }, signature }) as mcpPins().value gives",
    );
  }
  if (saved.server !== server) {
    throw new InvalidPinsError("server", `the saved pins were made for ${saved.server}, not ${server}: pins belong to one server`);
  }
  if (sign) {
    if (typeof saved.signature !== "string") throw new InvalidPinsError("unsigned", "the saved pins carry no signature, and mcpPins() has a secret");
    if (!sameSignature(saved.signature, await sign(server, saved.tools as Record<string, string>))) {
      throw new InvalidPinsError("signature", "the saved pins were edited, or signed with another secret");
    }
  }
  return new Map(tools as [string, string][]);
}

/** The error a refused call gives: the model reads it, so it says what happened and what is next. */
function changedError(name: string, offered: string, now: string | undefined): ToolChangedError {
  const what = now === undefined ? "the server no longer lists it" : "its description or schema on the server is not the one approved";
  return new ToolChangedError(name, offered, now, `the MCP tool "${name}" was not called: ${what}. It needs the user's approval again.`);
}
