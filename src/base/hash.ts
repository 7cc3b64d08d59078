/**
 * FNV-1a (32 bit) of `s` in base 36, 7 characters: short, stable across runtimes and runs,
 * good enough to tell ids and names apart (not a cryptographic hash).
 */
export function fnv1a36(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36).padStart(7, "0");
}
