// PKCE (RFC 7636) with S256, and the random values of a flow, from Web Crypto alone (every
// runtime toolloop runs in has crypto.getRandomValues and crypto.subtle).
import { bytesToBase64 } from "../../../src/base/index.js";

/** base64url without padding (RFC 4648 §5), as PKCE and OAuth values are written. */
export function base64url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** `bytes` random bytes as base64url: 32 give a 43-character PKCE verifier (256 bits). */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The S256 code challenge of a verifier: base64url(SHA-256(verifier)). */
export async function s256(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}
