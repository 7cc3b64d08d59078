// Remote tool names → names providers accept: valid, unique (case-insensitively, as the
// registry compares), stable, and names that already fit are left alone.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mapToolNames } from "../../adapters/mcp/client/names.js";
import type { Tool } from "../../src/index.js";
import { createRegistry } from "../../src/tools/registry.js";

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

describe("mapToolNames", () => {
  it("leaves valid, distinct names alone", () => {
    expect(mapToolNames(["get_weather", "Search-2", "x"])).toEqual(["get_weather", "Search-2", "x"]);
  });

  it("sanitises dots, slashes and spaces without a suffix when that is unique", () => {
    expect(mapToolNames(["files.read", "a/b c"])).toEqual(["files_read", "a_b_c"]);
  });

  it("adds a short stable hash when the sanitised name would collide", () => {
    const [a, b] = mapToolNames(["files_read", "files.read"]);
    expect(a).toBe("files_read");
    expect(b).toMatch(/^files_read_[0-9a-z]{7}$/);
    expect(mapToolNames(["files_read", "files.read"])).toEqual([a, b]); // stable across runs
    // whichever comes first, the name that already fits keeps itself
    expect(mapToolNames(["files.read", "files_read"])).toEqual([b, a]);
  });

  it("separates names that differ only in case (the registry lower-cases)", () => {
    const out = mapToolNames(["Tool", "tool", "TOOL"]);
    expect(out[0]).toBe("Tool");
    expect(new Set(out.map((n) => n.toLowerCase())).size).toBe(3);
  });

  it("cuts names over 64 characters and keeps them apart by hash", () => {
    const long1 = "a".repeat(100);
    const long2 = "a".repeat(99) + "b";
    const [x, y] = mapToolNames([long1, long2]);
    expect(x).toHaveLength(64);
    expect(y).toHaveLength(64);
    expect(x).not.toBe(y);
  });

  it("renames a remote web_search, which toolloop would read as the provider's native search", () => {
    const [a, b] = mapToolNames(["web_search", "Web.Search"]);
    expect(a).toMatch(/^web_search_[0-9a-z]{7}$/);
    expect(b!.toLowerCase()).not.toBe("web_search");
    expect(b).not.toBe(a);
  });

  it("gives an empty or all-symbol name a usable one", () => {
    const [a, b] = mapToolNames(["", "..."]);
    expect(a).toMatch(VALID);
    expect(b).toMatch(VALID);
  });

  it("property: any list of names maps to valid, case-insensitively unique names a registry accepts", () => {
    const names = fc.array(
      fc.oneof(fc.string({ maxLength: 140 }), fc.constantFrom("a.b", "a_b", "A_B", "x y", "x_y", "ü", "", "web_search", "WEB_SEARCH", "web.search")),
      { maxLength: 25 },
    );
    fc.assert(
      fc.property(names, (list) => {
        const out = mapToolNames(list);
        expect(out).toHaveLength(list.length);
        for (const n of out) expect(n).toMatch(VALID);
        expect(new Set(out.map((n) => n.toLowerCase())).size).toBe(out.length);
        expect(mapToolNames(list)).toEqual(out);
        const tools = out.map((name): Tool => ({ name, description: "A test tool.", parameters: { type: "object" }, call: async () => "" }));
        const registry = createRegistry(tools);
        expect(registry.webSearch).toBe(false);
        expect(registry.specs).toHaveLength(out.length);
      }),
    );
  });
});
