// WWW-Authenticate, read as RFC 9110 §11.6.1 writes it: one or more challenges, each a scheme
// followed by comma-separated auth-params (name=token or name="quoted string" with backslash
// escapes), or by a token68. Only the Bearer challenge matters here: its resource_metadata
// (RFC 9728 §5.1), scope and error (RFC 6750 §3).

export interface BearerChallenge {
  resourceMetadata: string | undefined;
  scope: string | undefined;
  error: string | undefined;
}

/** The Bearer challenge of a WWW-Authenticate header, or undefined when there is none. */
export function bearerChallenge(header: string | null): BearerChallenge | undefined {
  if (!header) return undefined;
  let bearer: Record<string, string> | undefined;
  let current: Record<string, string> | undefined;
  for (const element of splitElements(header)) {
    // "Scheme", "Scheme token68", "Scheme name=value" start a challenge; "name=value" continues one.
    const start = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:[ \t]+(.*))?$/s.exec(element);
    const param = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*=[ \t]*(.*)$/s;
    if (start && !param.test(element)) {
      current = Object.create(null) as Record<string, string>;
      if (start[1]!.toLowerCase() === "bearer") bearer ??= current;
      const rest = start[2] ?? "";
      const first = param.exec(rest);
      if (first) current[first[1]!.toLowerCase()] ??= unquote(first[2]!);
      continue;
    }
    const p = param.exec(element);
    if (p && current) current[p[1]!.toLowerCase()] ??= unquote(p[2]!);
  }
  if (!bearer) return undefined;
  return { resourceMetadata: bearer.resource_metadata, scope: bearer.scope, error: bearer.error };
}

/** The header split at commas outside quoted strings, each part trimmed, empty parts dropped. */
function splitElements(header: string): string[] {
  const out: string[] = [];
  let part = "";
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const c = header[i]!;
    if (quoted && c === "\\") {
      part += c + (header[++i] ?? "");
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === "," && !quoted) {
      out.push(part.trim());
      part = "";
    } else part += c;
  }
  out.push(part.trim());
  return out.filter(Boolean);
}

/** A token as is; a quoted string without its quotes and escapes. */
function unquote(value: string): string {
  const v = value.trim();
  if (!v.startsWith('"')) return v;
  let out = "";
  for (let i = 1; i < v.length && v[i] !== '"'; i++) out += v[i] === "\\" ? (v[++i] ?? "") : v[i];
  return out;
}
