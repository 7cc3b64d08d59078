// The errors of pinned tool definitions. InvalidPinsError refuses saved pins mcpTools() cannot
// trust (thrown before anything is listed); ToolChangedError refuses a call to a tool whose
// definition is no longer the one offered (the model reads it as the call's error result, and
// the tool does not run), and an approval of a definition that changed since it was shown.
import { ToolloopError } from "../../../src/base/index.js";

/** Why saved pins were refused. */
export type PinsFailure =
  | "format" // not a pins value of this version (v: 1, server, tools of strings)
  | "server" // made for another MCP endpoint
  | "unsigned" // no signature, and mcpPins() has a secret
  | "signature"; // edited, or signed with another secret

/** Saved pins mcpTools() will not use; `reason` says why. Nothing was offered. */
export class InvalidPinsError extends ToolloopError {
  readonly reason: PinsFailure;
  constructor(reason: PinsFailure, message: string) {
    super("invalid_pins", `mcp pins: ${message}`);
    this.reason = reason;
  }
}

/** A remote tool's definition is not the one pinned or offered: the call was not sent. */
export class ToolChangedError extends ToolloopError {
  /** The remote tool's name. */
  readonly tool: string;
  /** The fingerprint of the definition the model was offered (or the person was shown). */
  readonly expected: string | undefined;
  /** The fingerprint of its definition on the server now; undefined when the server no longer lists it. */
  readonly now: string | undefined;
  constructor(tool: string, expected: string | undefined, now: string | undefined, message: string) {
    super("tool_changed", message);
    this.tool = tool;
    this.expected = expected;
    this.now = now;
  }
}
