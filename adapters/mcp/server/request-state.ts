// The requestState of a 2026-07-28 "input_required" result: the answers a tool was given in
// earlier rounds, the keys of the questions this round asks, and the (canonical) arguments
// of the call that asked them, handed to the client and echoed back, so the server stores
// nothing between rounds. The retry's inputResponses count only under the keys asked here and
// only for the same arguments (server.ts), so an answer cannot be moved to other arguments
// or given to a question that was never asked. It is sealed with HMAC-SHA-256 (Web Crypto,
// in every runtime) over the tool's name and that payload, so a state that was edited, cut,
// or taken from another tool's call is refused (-32602) instead of being replayed into the
// handler. The key is
// ServerOptions.requestStateSecret; without one it is derived from the server's name, which
// still catches corrupted and hand-edited states but not a forger who knows the name: set a
// secret when a tool trusts its earlier answers (the same one on every instance, so any
// instance can open what another sealed).
import { base64ToBytes, bytesToBase64 } from "../../../src/base/index.js";

const encoder = new TextEncoder();

export interface RoundState {
  /** The answers of the rounds before (keyed like their questions), and approvals carried on. */
  answers: Record<string, unknown>;
  /** The keys of the questions the round that issued this state asked: the only answers its retry may bring. */
  asked: string[];
  /** canonicalJson of the arguments of the call that asked them: the state holds only for a retry with the same. */
  args: string;
}

export interface StateSeal {
  seal(tool: string, state: RoundState): Promise<string>;
  /**
   * The state sealed for `tool`, or undefined when it is not one we sealed for it. A state
   * sealed in an older layout opens as binding nothing (no questions, no arguments).
   */
  open(tool: string, state: string): Promise<RoundState | undefined>;
}

export function createStateSeal(secret: string): StateSeal {
  // Imported on first use: building the handler stays free of async work.
  let key: Promise<CryptoKey> | undefined;
  const getKey = () => (key ??= crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]));
  // The tool's name is signed with the payload but not carried in it: a state opens only for the call it came from.
  const signed = (tool: string, body: string) => encoder.encode(`${tool}\n${body}`);

  return {
    async seal(tool, { answers, asked, args }) {
      const body = toBase64Url(encoder.encode(JSON.stringify({ v: 3, answers, asked, args })));
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
        const value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as { answers?: unknown; asked?: unknown; args?: unknown };
        if (typeof value.answers !== "object" || value.answers === null || Array.isArray(value.answers)) return undefined;
        const asked = Array.isArray(value.asked) ? value.asked.filter((k): k is string => typeof k === "string") : [];
        // No arguments (an older layout): matches no call, so its retry starts over.
        return { answers: value.answers as Record<string, unknown>, asked, args: typeof value.args === "string" ? value.args : "" };
      } catch {
        return undefined;
      }
    },
  };
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
