// Signatures on pending calls: a suspended run travels as plain JSON (a browser, a queue, a
// database), so whoever holds it could change what a call will do before it is approved.
// With createClient({ secret }), each pending call carries an HMAC-SHA-256 (Web Crypto, so
// it runs the same in browsers, Workers, Deno, Bun and Node) over what the decision acts on.
import type { PendingState, ToolCall } from "./messages.js";

export type Signer = (call: ToolCall, state: PendingState) => Promise<string>;

/**
 * A signer for `secret` (a string, or an HMAC CryptoKey). What is signed: the call id, the
 * tool name, the arguments and the kind (the contract), and also the answers already given
 * and the approval flag, since on resume those decide what the handler runs with.
 */
export function createSigner(secret: string | CryptoKey): Signer {
  let key: Promise<CryptoKey> | undefined;
  return async (call, state) => {
    key ??=
      typeof secret === "string"
        ? crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
        : Promise.resolve(secret);
    const data = JSON.stringify([call.id, call.name.toLowerCase(), call.arguments, state.kind, state.answers ?? [], state.approved === true]);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await key, new TextEncoder().encode(data)));
    let s = "";
    for (const b of mac) s += String.fromCharCode(b);
    return btoa(s);
  };
}
