// A Store on a page's Web Storage (localStorage or sessionStorage), for oauth() in a browser
// tab: tokens and a flow's PKCE verifier survive the redirect to the authorization server and
// back. Anything that runs script on the page can read it; sessionStorage at least ends with the tab.
import { InvalidOptionsError, type Store } from "../../../src/base/index.js";

/**
 * The part of the Web Storage interface this uses, written out (not `Pick<Storage, ...>`): the
 * package's types must not need the DOM library, which a Worker's or Deno's types do not have.
 */
export interface WebStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A Store whose values are JSON text in `storage` under `prefix` + key. */
export function webStorageStore(storage: WebStorage, prefix = "toolloop:"): Store {
  if (!storage || typeof storage.getItem !== "function" || typeof storage.setItem !== "function" || typeof storage.removeItem !== "function") {
    throw new InvalidOptionsError("webStorageStore(storage): pass localStorage or sessionStorage (a page's Web Storage)");
  }
  return {
    async get(key) {
      const text = storage.getItem(prefix + key);
      if (text === null) return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return undefined; // not ours, or damaged: as if absent
      }
    },
    async put(key, value) {
      const text = JSON.stringify(value);
      if (text === undefined) throw new TypeError(`webStorageStore: the value for ${JSON.stringify(key)} is not JSON`);
      storage.setItem(prefix + key, text); // a full storage throws: the put rejects
    },
    async delete(key) {
      storage.removeItem(prefix + key);
    },
  };
}
