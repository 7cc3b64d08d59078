// durableObjectStore(): the core's Store over a Durable Object's key-value storage. Values are
// kept as JSON text, like memoryStore(), so what comes back is what JSON gives (no Dates, no
// undefined fields) whatever the engine. A SQLite-backed object refuses a key and value over
// 2 MB together, and a conversation's record grows past that, so a long value is cut into
// chunks that are written in one multi-key put, which the engine applies atomically.
import { checkOptions, InvalidOptionsError, type Store } from "../../src/base/index.js";
import { splitText } from "./split.js";
import type { DurableObjectStorageLike } from "./types.js";

export interface DurableObjectStoreOptions {
  /** Put before every key this store writes, so it shares the object's storage with the app's own keys. Default "toolloop:". */
  prefix?: string | undefined;
}

/**
 * Characters of JSON text per stored value. The engine serializes a string with V8 (one byte a
 * character when every character is Latin-1, else two), so 512 Ki characters stay under 1 MiB,
 * half the 2 MB limit.
 */
export const CHUNK_CHARS = 512 * 1024;
/** One put takes at most 128 keys: the head and 127 chunks (about 66 million characters). */
const MAX_CHUNKS = 127;

/** What the head key holds when the value is in chunks (a plain string is the whole JSON text). */
interface Head {
  chunks: number;
}

/**
 * The core Store over `ctx.storage`: `await put()` resolves once the value is durable. Keys are
 * `<prefix>v:<key>`, and chunks of a long value `<prefix>c:<key>:<n>`.
 */
export function durableObjectStore(storage: DurableObjectStorageLike, options: DurableObjectStoreOptions = {}): Store {
  checkOptions("durableObjectStore", options, "prefix");
  const prefix = options.prefix ?? "toolloop:";
  if (typeof prefix !== "string") throw new InvalidOptionsError('durableObjectStore: `prefix` must be a string, e.g. { prefix: "agent:" }');
  const head = (key: string) => `${prefix}v:${key}`;
  const chunk = (key: string, n: number) => `${prefix}c:${key}:${n}`;
  const chunkKeys = (key: string, from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => chunk(key, from + i));
  const chunksOf = (value: unknown) => (isHead(value) ? value.chunks : 0);

  // Writes to one key run one after another: each reads the head to know which chunks go stale.
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const before = queues.get(key) ?? Promise.resolve();
    const done = before.then(work, work);
    const tail = done.catch(() => {});
    queues.set(key, tail);
    void tail.then(() => queues.get(key) === tail && queues.delete(key));
    return done;
  };

  return {
    async get(key) {
      const stored = await storage.get(head(key));
      if (stored === undefined) return undefined;
      if (typeof stored === "string") return JSON.parse(stored);
      if (!isHead(stored)) throw new TypeError(`durableObjectStore: ${JSON.stringify(head(key))} holds something this store did not write`);
      const keys = chunkKeys(key, 0, stored.chunks);
      const parts = await storage.get(keys);
      const text = keys.map((k) => {
        const part = parts.get(k);
        if (typeof part !== "string") throw new TypeError(`durableObjectStore: chunk ${JSON.stringify(k)} of a stored value is missing`);
        return part;
      });
      return JSON.parse(text.join(""));
    },

    put(key, value) {
      const text = JSON.stringify(value);
      if (text === undefined) return Promise.reject(new TypeError(`durableObjectStore: the value for ${JSON.stringify(key)} is not JSON`));
      const parts = splitText(text, CHUNK_CHARS);
      if (parts.length > MAX_CHUNKS) {
        return Promise.reject(
          new RangeError(
            `durableObjectStore: the value for ${JSON.stringify(key)} is ${text.length} characters, over the ${MAX_CHUNKS * CHUNK_CHARS} one atomic write can hold`,
          ),
        );
      }
      return serial(key, async () => {
        const old = chunksOf(await storage.get(head(key)));
        const entries: Record<string, unknown> = {};
        if (parts.length === 1) entries[head(key)] = parts[0];
        else {
          entries[head(key)] = { chunks: parts.length } satisfies Head;
          for (const [n, part] of parts.entries()) entries[chunk(key, n)] = part;
        }
        const fresh = parts.length === 1 ? 0 : parts.length;
        // No await between the two: the engine coalesces them into one atomic write, so a crash
        // leaves either the old value or the new one, never a head without its chunks.
        const writes = [storage.put(entries)];
        if (old > fresh) writes.push(storage.delete(chunkKeys(key, fresh, old)).then(() => {}));
        await Promise.all(writes);
      });
    },

    delete(key) {
      return serial(key, async () => {
        const old = chunksOf(await storage.get(head(key)));
        await storage.delete([head(key), ...chunkKeys(key, 0, old)]);
      });
    },
  };
}

function isHead(value: unknown): value is Head {
  return typeof value === "object" && value !== null && Number.isInteger((value as Head).chunks) && (value as Head).chunks > 1;
}
