// The small pure parts of oauth(): the WWW-Authenticate reader, PKCE S256 against RFC 7636's
// own example, and the options it refuses (each with what to write instead).
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { mcpTools, oauth } from "../../../adapters/mcp/index.js";
import { bearerChallenge } from "../../../adapters/mcp/oauth/challenge.js";
import { randomToken, s256 } from "../../../adapters/mcp/oauth/pkce.js";
import { rejectionOf } from "./helpers.js";

describe("WWW-Authenticate", () => {
  it("reads the Bearer challenge's resource_metadata, scope and error, quoted or not", () => {
    expect(
      bearerChallenge('Bearer resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp", scope="a b", error="insufficient_scope"'),
    ).toEqual({
      resourceMetadata: "https://x.example/.well-known/oauth-protected-resource/mcp",
      scope: "a b",
      error: "insufficient_scope",
    });
    expect(bearerChallenge("Bearer error=invalid_token,scope=files:read")).toEqual({
      resourceMetadata: undefined,
      scope: "files:read",
      error: "invalid_token",
    });
    expect(bearerChallenge("bearer")).toEqual({ resourceMetadata: undefined, scope: undefined, error: undefined });
  });

  it("finds Bearer among other challenges, and keeps a quoted comma or escaped quote inside its value", () => {
    const h =
      'Basic realm="a, b", Bearer realm="x", scope="s1, s2", error_description="say \\"no\\"", resource_metadata="https://m.example/p", DPoP algs="ES256"';
    expect(bearerChallenge(h)).toEqual({ resourceMetadata: "https://m.example/p", scope: "s1, s2", error: undefined });
    expect(bearerChallenge('Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple"')).toBeUndefined();
    expect(bearerChallenge('Basic dXNlcjpwYXNz==, Bearer scope="z"')?.scope).toBe("z");
  });

  it("a later challenge's parameters never leak into Bearer's", () => {
    expect(bearerChallenge('Bearer realm="x", Other scope="not-ours"')?.scope).toBeUndefined();
    expect(bearerChallenge(null)).toBeUndefined();
    expect(bearerChallenge("")).toBeUndefined();
  });
});

describe("PKCE", () => {
  it("S256 of RFC 7636 appendix B's verifier is its challenge; verifiers are 43 base64url characters, never the same", async () => {
    expect(await s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    const v = randomToken(32);
    expect(v).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomToken(32)).not.toBe(v);
    expect(await s256(v)).toBe(createHash("sha256").update(v).digest("base64url"));
  });
});

describe("options", () => {
  const redirect = async () => undefined;
  it("refuses a misspelt option with the one it meant, and a missing redirect step or redirect URI", () => {
    expect(() => oauth({ redirectUri: "https://a.example/cb", redirect, scopes: "x" } as never)).toThrow(/unknown option `scopes`; did you mean `scope`\?/);
    expect(() => oauth({ redirectUri: "https://a.example/cb" } as never)).toThrow(/`redirect` must be a function/);
    expect(() => oauth({ redirect } as never)).toThrow(/`redirectUri` must be an absolute URL/);
    expect(() => oauth({ redirectUri: "https://a.example/cb#frag", redirect })).toThrow(/without a fragment/);
  });

  it("refuses a client without an id, an unknown auth method, a metadata URL that is not https with a path, a bad store or maxStepUps", () => {
    const base = { redirectUri: "http://127.0.0.1:9/cb", redirect };
    expect(() => oauth({ ...base, client: { id: "" } })).toThrow(/`client` must be \{ id, secret\? \}/);
    expect(() => oauth({ ...base, client: { id: "a", authMethod: "private_key_jwt" as never } })).toThrow(/client_secret_basic, client_secret_post, none/);
    expect(() => oauth({ ...base, client: { id: "a", secrett: "x" } as never })).toThrow(/did you mean `secret`/);
    expect(() => oauth({ ...base, clientMetadataUrl: "http://app.example/client.json" })).toThrow(/https URL with a path/);
    expect(() => oauth({ ...base, clientMetadataUrl: "https://app.example/" })).toThrow(/https URL with a path/);
    expect(() => oauth({ ...base, store: {} as never })).toThrow(/`store` must be a Store/);
    expect(() => oauth({ ...base, maxStepUps: -1 })).toThrow(/maxStepUps must be a whole number/);
  });

  it("mcpTools refuses auth beside an authorization header, and an auth that is not oauth()'s", async () => {
    const auth = oauth({ redirectUri: "http://127.0.0.1:9/cb", redirect });
    expect(await rejectionOf(mcpTools({ url: "http://127.0.0.1:9/mcp", auth, headers: { Authorization: "Bearer x" } }))).toMatchObject({
      code: "invalid_options",
    });
    expect(await rejectionOf(mcpTools({ url: "http://127.0.0.1:9/mcp", auth: {} as never }))).toMatchObject({ code: "invalid_options" });
  });
});
