// The requestState of a 2026-07-28 "input_required" result: the answers a tool was given in
// earlier rounds, handed to the client and echoed back, so the server stores nothing between
// rounds. It is sealed with HMAC-SHA-256 (Web Crypto, in every runtime) over the tool's name
// and the answers, so a state that was edited, cut, or taken from another tool's call is
// refused (-32602) instead of being replayed into the handler. The key is
// ServerOptions.requestStateSecret; without one it is derived from the server's name, which
// still catches corrupted and hand-edited states but not a forger who knows the name: set a
// secret when a tool trusts its earlier answers (the same one on every instance, so any
// instance can open what another sealed).
const encoder = new TextEncoder();

export interface StateSeal {
  seal(tool: string, answers: Record<string, unknown>): Promise<string>;
  /** The answers sealed for `tool`, or undefined when the state is not one we sealed for it. */
  open(tool: string, state: string): Promise<Record<string, unknown> | undefined>;
}

export function createStateSeal(secret: string): StateSeal {
  // Imported on first use: building the handler stays free of async work.
  let key: Promise<CryptoKey> | undefined;
  const getKey = () => (key ??= crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]));
  // The tool's name is signed with the payload but not carried in it: a state opens only for the call it came from.
  const signed = (tool: string, body: string) => encoder.encode(`${tool}\n${body}`);

  return {
    async seal(tool, answers) {
      const body = toBase64Url(encoder.encode(JSON.stringify({ v: 2, answers })));
      const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await getKey(), signed(tool, body)));
      return `${body}.${toBase64Url(mac)}`;
    },
    async open(tool, state) {
      const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(state);
      if (!m) return undefined;
      const mac = fromBase64Url(m[2]!);
      if (!mac || !(await crypto.subtle.verify("HMAC", await getKey(), mac, signed(tool, m[1]!)))) return undefined;
      const bytes = fromBase64Url(m[1]!);
      try {
        const value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as { answers?: unknown };
        return typeof value.answers === "object" && value.answers !== null && !Array.isArray(value.answers) ? (value.answers as Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** Standard base64 of bytes (btoa takes a binary string). */
export function bytesToBase64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** The bytes of standard base64; throws on malformed input (atob does). */
export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function toBase64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return base64ToBytes(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
  } catch {
    return undefined;
  }
}
