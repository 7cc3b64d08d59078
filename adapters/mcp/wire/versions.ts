// MCP protocol revisions this package speaks, newest first, and the few behaviours that
// differ between them. Revisions are dates, so string order is time order. Two eras:
// "legacy" (2025-11-25 and earlier: an initialize handshake negotiates the revision) and
// "modern" (2026-07-28: stateless, every request names its revision in params._meta).

/** Every revision served and accepted, newest first. */
export const PROTOCOL_VERSIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

/** The stateless revision: no initialize, no sessions, `_meta` on every request. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** Revisions an initialize handshake may settle on (never a modern one). */
export const LEGACY_PROTOCOL_VERSIONS = PROTOCOL_VERSIONS.filter((v) => v < MODERN_PROTOCOL_VERSION);

/** The newest revision an initialize handshake offers. */
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = LEGACY_PROTOCOL_VERSIONS[0]!;

/**
 * The revision a server assumes when a request carries no MCP-Protocol-Version header
 * (Streamable HTTP, "Protocol Version Header": SHOULD assume 2025-03-26).
 */
export const ASSUMED_PROTOCOL_VERSION: ProtocolVersion = "2025-03-26";

/** The reserved `_meta` keys of the 2026-07-28 per-request envelope. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

export function isSupportedVersion(v: unknown): v is ProtocolVersion {
  return typeof v === "string" && (PROTOCOL_VERSIONS as readonly string[]).includes(v);
}

export function isModern(v: string): boolean {
  return v >= MODERN_PROTOCOL_VERSION;
}

/** Version negotiation in initialize: the client's revision when we speak it (legacy only), else our latest. */
export function negotiateVersion(requested: unknown): ProtocolVersion {
  return isSupportedVersion(requested) && !isModern(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** JSON-RPC batches were allowed up to 2025-03-26 and removed in 2025-06-18. */
export function allowsBatches(v: ProtocolVersion): boolean {
  return v <= "2025-03-26";
}

/**
 * From 2025-11-25 (SEP-1303) arguments that fail the input schema are a tool execution
 * error (isError result, so the model can fix them); earlier revisions list "invalid
 * arguments" among the protocol errors (-32602).
 */
export function inputErrorsAreToolResults(v: ProtocolVersion): boolean {
  return v >= "2025-11-25";
}
