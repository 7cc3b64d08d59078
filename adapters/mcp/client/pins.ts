// What mcpTools asks of its `pins` option: which listed tools to offer, a guard on each call,
// and word of the server's notifications. toolloop/mcp's mcpPins() makes one (adapters/mcp/pins/);
// mcpTools knows nothing of fingerprints or signatures, so an agent that pins nothing ships none of it.
import { InvalidOptionsError, isRecord, type Logger } from "../../../src/base/index.js";
import type { Tool } from "../../../src/tools/index.js";

/** The pins as an app saves them beside a conversation's history: one JSON value. */
export interface SavedPins {
  v: 1;
  /** The MCP endpoint they were made for: origin and path (no credentials, no query). */
  server: string;
  /** Each pinned remote tool's name → the fingerprint of its definition (base64url SHA-256). */
  tools: Record<string, string>;
  /** HMAC-SHA-256 of the above, base64; absent from pins made with mcpPins({ unsigned: true }). */
  signature?: string;
}

/** A listed tool withheld from the model until approved: its definition changed since it was pinned, or it is new. */
export interface McpChangedTool {
  /** The remote tool's name. */
  name: string;
  /** The fingerprint it was pinned with; undefined for a tool the pins do not know (new). */
  pinned: string | undefined;
  /** The fingerprint of its definition as listed now. */
  now: string;
  /** The definition as listed now (description, inputSchema, annotations...), to show the person who approves it. */
  definition: Readonly<Record<string, unknown>>;
}

/** A listed tool as mcpTools read it: its definition is what is fingerprinted. */
export interface ListedTool {
  readonly definition: Record<string, unknown>;
}

/** mcpTools's side of pins bound to one server. */
export interface PinAttachment {
  /** Told of each notification the server sends; tools/list_changed marks the definitions for a re-check. */
  notified(method: string): void;
  /**
   * The tools to offer (`listed[i]` is `tools[i]`'s definition), each guarded: a call first
   * re-lists (with `relist`) when the server said the list changed, and is refused if its
   * tool's definition is no longer the one offered.
   */
  offer(
    tools: readonly Tool[],
    listed: readonly ListedTool[],
    relist: (signal: AbortSignal) => Promise<readonly ListedTool[]>,
    logger: Logger,
  ): Promise<Tool[]>;
}

/** Pinned tool definitions for one mcpTools() call: mcpPins({ secret, saved }) from toolloop/mcp. */
export interface McpPins {
  /** The pins to save beside the history (signed unless made with unsigned: true); undefined until mcpTools() listed the tools. */
  readonly value: SavedPins | undefined;
  /** The listed tools withheld from the model, and why; approve() pins them. */
  readonly changed: readonly McpChangedTool[];
  /**
   * Pins the definitions `changed` shows for these tools (a name, or a `changed` entry: then the
   * definition must still be the one it shows) and resolves with the new value. The tool set
   * already made does not change: the next mcpTools() with the new pins offers them.
   */
  approve(tools: readonly (string | { name: string; now: string })[]): Promise<SavedPins>;
  /** Used by mcpTools (apps do not call it): checks the saved pins against the server at `url`. */
  attach(url: string): Promise<PinAttachment>;
}

/** The pins option bound to the server, refused when it is not what mcpPins() returns. */
export function attachPins(pins: McpPins, url: string): Promise<PinAttachment> {
  if (!isRecord(pins) || typeof pins.attach !== "function") {
    throw new InvalidOptionsError("mcpTools(): `pins` must be what mcpPins({ secret, saved }) from toolloop/mcp returns");
  }
  return pins.attach(url);
}
