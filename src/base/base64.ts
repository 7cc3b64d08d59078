// Standard base64 (RFC 4648) of bytes and back, with btoa/atob (every runtime has them): MCP's
// "=?base64?...?=" header values and sealed request state, Gemini's inline data: URL text.

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
