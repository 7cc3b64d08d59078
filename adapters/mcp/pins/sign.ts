// Fingerprints and signatures of pinned tool definitions, with Web Crypto (so the same code runs
// in browsers, Workers, Deno, Bun and Node). A fingerprint is SHA-256 of the definition's canonical
// JSON: the same definition, whatever order its keys came in, always hashes the same. The saved
// pins carry HMAC-SHA-256 over their server and tools, with the rule suspension({ secret }) has
// for its key: at least 32 characters or an HMAC CryptoKey, or unsigned said out loud.
import { bytesToBase64, hmacSigner, InvalidOptionsError } from "../../../src/base/index.js";
import { signingSecret } from "../../../src/suspension/index.js";
import type { SavedPins } from "../client/pins.js";
import { canonicalJson } from "../wire/jsonrpc.js";

/**
 * What a fingerprint covers: everything of a listed tool that the model reads or that decides
 * what a call means. The title is in it because a tool without a description is described to
 * the model by its title.
 */
const FIELDS = ["name", "title", "description", "inputSchema", "outputSchema", "annotations"] as const;

/** Tags the signed text, so a signature over another format (or another version of this one) never matches. */
const FORMAT = "toolloop-mcp-pins-1";

const encoder = new TextEncoder();

/** base64url without padding: fingerprints go in JSON and logs as they are. */
function base64url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The fingerprint of a listed tool's definition: base64url SHA-256 of the canonical JSON of FIELDS. */
export async function fingerprint(definition: Record<string, unknown>): Promise<string> {
  const picked: Record<string, unknown> = {};
  for (const key of FIELDS) if (definition[key] !== undefined) picked[key] = definition[key];
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(canonicalJson(picked)))));
}

/**
 * The server as pins name it: origin and path. Credentials and query values stay out of what
 * an app saves (they may be tokens, and a rotated token must not void the pins).
 */
export function serverOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidOptionsError(`mcpTools(): url must be an absolute URL, got ${JSON.stringify(url.slice(0, 100))}`);
  }
  return `${parsed.origin}${parsed.pathname}`;
}

/** Signs pins; undefined for mcpPins({ unsigned: true }). */
export type PinSigner = ((server: string, tools: Record<string, string>) => Promise<string>) | undefined;

export interface PinSecretOptions {
  secret?: string | CryptoKey | undefined;
  unsigned?: boolean | undefined;
}

/** The signer `options` ask for; throws InvalidOptionsError (saying what to write) for anything else. */
export function pinSigner(options: PinSecretOptions, given: boolean): PinSigner {
  // An unset variable (`secret: process.env.PIN_SECRET`) is refused like a missing key: never quietly unsigned.
  const key = signingSecret("mcpPins()", options.secret, options.unsigned, given, "mcpPins({ unsigned: true }) to keep pins nobody signed");
  if (key === undefined) return undefined;
  const mac = hmacSigner(key);
  return (server, tools) => mac(canonicalJson([FORMAT, server, tools]));
}

/** The pins value for `tools` (sorted by name), signed when there is a signer. */
export async function sealPins(sign: PinSigner, server: string, pinned: ReadonlyMap<string, string>): Promise<SavedPins> {
  const tools = Object.fromEntries([...pinned].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return sign ? { v: 1, server, tools, signature: await sign(server, tools) } : { v: 1, server, tools };
}
