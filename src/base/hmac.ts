// The Web Crypto pieces every signed value shares: pending calls (suspension), a journal's
// record, MCP's pinned tool definitions; and the hashes idempotency keys are made of.
import { bytesToBase64 } from "./base64.js";

const encoder = new TextEncoder();

/** HMAC-SHA-256 of a text under `secret` (a string, or an HMAC CryptoKey), base64; the key is imported once. */
export function hmacSigner(secret: string | CryptoKey): (text: string) => Promise<string> {
  let key: Promise<CryptoKey> | undefined;
  return async (text) => {
    key ??=
      typeof secret === "string"
        ? crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
        : Promise.resolve(secret);
    return bytesToBase64(new Uint8Array(await crypto.subtle.sign("HMAC", await key, encoder.encode(text))));
  };
}

/** Compares a signature with the expected one without stopping at the first difference. */
export function sameSignature(given: string | undefined, expected: string): boolean {
  let diff = given?.length === expected.length ? 0 : 1;
  for (let i = 0; i < expected.length; i++) diff |= (given?.charCodeAt(i) ?? 0) ^ expected.charCodeAt(i);
  return diff === 0;
}

/** Bytes as lower-case hex. */
export function bytesToHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 of a text, as hex. */
export async function sha256Hex(text: string): Promise<string> {
  return bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
}
