// Long JSON text cut into pieces a storage row or value can hold.

/** `text` in pieces of at most `size` characters (one empty piece for ""), never between the halves of a surrogate pair. */
export function splitText(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let at = 0; at < text.length || parts.length === 0; ) {
    let end = Math.min(at + size, text.length);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--;
    parts.push(text.slice(at, end));
    at = end;
  }
  return parts;
}
