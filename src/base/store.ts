// A store: JSON values under string keys, the one thing durable runs (the journal) and the MCP
// OAuth client (tokens, the PKCE verifier) need to keep. Small on purpose, so a Durable Object's
// storage, Deno KV, IndexedDB, localStorage or Redis is a few lines (docs/durable-runs.md).

/**
 * JSON values under string keys. `get` resolves undefined for a key never put (or deleted).
 * `put` resolves once the value is durable: a caller that awaited it may crash and find it.
 * A rejected `put` means the value may not be there; callers stop before the next side effect.
 */
export interface Store {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * A store in memory, for tests and for runs that need no durability. Values are kept as JSON
 * text, as a real store keeps them: what comes back is a copy, and a value that does not
 * survive JSON (a function, a cycle, a Map) fails at `put`, as it would on disk.
 */
export function memoryStore(): Store {
  const data = new Map<string, string>();
  return {
    async get(key) {
      const text = data.get(key);
      return text === undefined ? undefined : JSON.parse(text);
    },
    async put(key, value) {
      const text = JSON.stringify(value);
      if (text === undefined) throw new TypeError(`memoryStore: the value for ${JSON.stringify(key)} is not JSON`);
      data.set(key, text);
    },
    async delete(key) {
      data.delete(key);
    },
  };
}
