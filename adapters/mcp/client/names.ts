// Remote MCP tool names are free-form ("files.read", "search docs", 128 characters); the
// providers take ^[a-zA-Z0-9_-]{1,64}$ and toolloop registers names lower-cased. This maps
// every remote name to one that fits, reversibly (the caller keeps the map), stable across
// runs (a hash of the name, no randomness), unique within the set even case-insensitively.
// "web_search" is reserved: toolloop reads a tool of that name as the provider's native
// search, so a remote tool called that is renamed like any collision.
import { fnv1a36 } from "../../../src/base/index.js";
import { WEB_SEARCH } from "../../../src/tools/index.js";

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;

/**
 * Local names for `remote`, in the same order. Names that already fit keep themselves
 * (they win over mapped names); others are sanitised, and a short hash of the original
 * is appended when the sanitised form was cut or would collide.
 */
export function mapToolNames(remote: readonly string[]): string[] {
  const taken = new Set<string>([WEB_SEARCH]);
  const out: (string | undefined)[] = remote.map(() => undefined);
  // Pass 1: names that fit, first come first served.
  remote.forEach((name, i) => {
    if (VALID.test(name) && !taken.has(name.toLowerCase())) {
      taken.add(name.toLowerCase());
      out[i] = name;
    }
  });
  // Pass 2: everything else, sanitised; the hash only when needed.
  remote.forEach((name, i) => {
    if (out[i] !== undefined) return;
    const clean = name.replace(/[^a-zA-Z0-9_-]/g, "_");
    let candidate = clean.length > 0 && clean.length <= MAX ? clean : withSuffix(clean || "tool", fnv1a36(name));
    for (let n = 1; taken.has(candidate.toLowerCase()); n++) {
      candidate = withSuffix(clean || "tool", n === 1 ? fnv1a36(name) : `${fnv1a36(name)}${n}`);
    }
    taken.add(candidate.toLowerCase());
    out[i] = candidate;
  });
  return out as string[];
}

function withSuffix(base: string, suffix: string): string {
  return `${base.slice(0, MAX - suffix.length - 1)}_${suffix}`;
}
