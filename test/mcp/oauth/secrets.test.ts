// The OAuth client's secrets (access and refresh tokens, the PKCE verifier, authorization codes,
// client secrets, the Basic credential) never reach a log line, an error, the conversation
// history or a trace span, even when the servers echo them back: every value is collected from
// what actually crossed the wire, and searched for in everything the app can see.
import { afterEach, expect, it } from "vitest";
import { mcpTools, oauth } from "../../../adapters/mcp/index.js";
import type { Logger } from "../../../src/base/log.js";
import { createClient, type Tool, tracing } from "../../../src/index.js";
import { scriptedProvider } from "../../../src/testing.js";
import { approvingAuth, ctx, rejectionOf } from "./helpers.js";
import { followRedirect, REDIRECT_URI, startWorld, type World, type WorldOptions } from "./world.js";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});
const start = async (o: WorldOptions = {}, tools?: Tool[]) => (world = await startWorld(o, tools));

/** A logger that keeps every line, fields and all, as JSON text. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push(JSON.stringify({ level, message, fields }));
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** Every secret that crossed the wire: what the world issued, and what the client sent it. */
function wireSecrets(w: World): string[] {
  const out = new Set(w.secrets);
  for (const e of w.log) {
    for (const key of ["code", "code_verifier", "refresh_token", "client_secret"]) if (e.form[key]) out.add(e.form[key]!);
    if (e.authorization) out.add(e.authorization.split(" ").pop()!);
  }
  const found = [...out].filter((s) => s.length >= 8);
  expect(found.length).toBeGreaterThan(0);
  return found;
}

/** Every text an error exposes: message, stack, String(), JSON, and each cause's. */
function everyText(err: unknown): string {
  const out: string[] = [];
  let e: any = err;
  for (let depth = 0; e !== undefined && e !== null && depth < 10; depth++, e = e.cause) {
    out.push(String(e), String(e.message), String(e.stack), JSON.stringify(e) ?? "");
  }
  return out.join("\n");
}

function expectNone(texts: string[], secrets: string[]): void {
  const all = texts.join("\n");
  for (const s of secrets) expect(all, `a secret (${s.slice(0, 6)}...) leaked`).not.toContain(s);
}

it("a full flow, refresh and step-up log what happened and no secret", async () => {
  const w = await start({ prm: "header", challengeScope: "read", methodScopes: { "tools/call": ["write"] }, registerAs: "client_secret_basic" });
  const logger = recordingLogger();
  const { auth } = approvingAuth({ logger });
  const tools = await mcpTools({ url: w.mcpUrl, auth, logger });
  await tools[0]!.call("{}", ctx()); // step-up
  w.tokens.clear();
  await tools[0]!.call("{}", ctx()); // refresh
  const secrets = wireSecrets(w);
  expect(w.log.some((e) => e.form.code_verifier)).toBe(true);
  expect(w.log.some((e) => e.form.grant_type === "refresh_token")).toBe(true);
  expect(w.log.some((e) => e.authorization?.startsWith("Basic "))).toBe(true);
  // The logger heard about each step...
  expect(logger.lines.join("\n")).toMatch(/authorization needed[\s\S]*authorized[\s\S]*more scope needed[\s\S]*token refreshed/);
  // ...and never of a secret.
  expectNone(logger.lines, secrets);
});

it("token endpoint errors that quote the code, the verifier and the client secret are scrubbed", async () => {
  const w = await start({ prm: "header", refuseCodes: true, echoSecrets: true, registerAs: "client_secret_post" });
  const logger = recordingLogger();
  const err = await rejectionOf(mcpTools({ url: w.mcpUrl, auth: approvingAuth({ logger }).auth, logger }));
  expect(err).toMatchObject({ code: "auth_error", reason: "token", oauthError: "invalid_grant" });
  // The server did quote them...
  const [token] = w.log.filter((e) => e.path.endsWith("/token"));
  expect(token!.form.code_verifier).toBeDefined();
  expect(err.message).toContain("code refused");
  expect(err.message).toContain("[redacted]");
  // ...and none survives in the error or the log.
  expectNone([everyText(err), ...logger.lines], wireSecrets(w));
});

it("a wrong client secret the server echoes back stays out of the error", async () => {
  const w = await start({
    prm: "header",
    dcr: false,
    echoSecrets: true,
    preRegistered: { id: "app", secret: "the-right-secret", method: "client_secret_basic", redirectUri: REDIRECT_URI },
  });
  const err = await rejectionOf(mcpTools({ url: w.mcpUrl, auth: approvingAuth({ client: { id: "app", secret: "a-wrong-secret-123" } }).auth }));
  expect(err).toMatchObject({ reason: "token", oauthError: "invalid_client" });
  expect(everyText(err)).not.toContain("a-wrong-secret-123");
  expectNone([everyText(err)], wireSecrets(w));
});

it("a server that quotes the bearer token in a tool error: not in the history, not in a span, not in what the model reads", async () => {
  const leak: Tool = { name: "leak", description: "Fails.", parameters: { type: "object", properties: {} }, call: async () => "unreachable" };
  const w = await start({ prm: "header", leakTool: true }, [leak]);
  const tools = await mcpTools({ url: w.mcpUrl, auth: approvingAuth().auth });
  const spans: { name: string; attributes: Record<string, unknown>; exceptions: string[] }[] = [];
  const tracer = {
    startSpan(name: string, options?: { attributes?: Record<string, unknown> }) {
      const span = { name, attributes: { ...options?.attributes }, exceptions: [] as string[] };
      spans.push(span);
      return {
        setAttribute: (k: string, v: unknown) => void (span.attributes[k] = v),
        setStatus: (s: unknown) => void (span.attributes.status = JSON.stringify(s)),
        recordException: (e: unknown) => void span.exceptions.push(everyText(e)),
        end: () => {},
      };
    },
  };
  const provider = scriptedProvider([{ toolCalls: [{ name: "leak", arguments: {} }] }, "done"]);
  const client = createClient({ provider, tools, tracer: tracing(tracer) });
  expect(await client.chat("go")).toBe("done");
  const history = JSON.stringify(client.history);
  // The server did answer with the token in the text (redacted on the way in).
  expect(history).toContain("denied for Bearer [redacted]");
  expect(spans.some((s) => s.name.startsWith("execute_tool"))).toBe(true);
  expectNone([history, JSON.stringify(provider.requests), JSON.stringify(spans)], wireSecrets(w));
});

it("a flow that finishes in complete() registers the stored verifier and the callback's code too", async () => {
  const w = await start({ prm: "header", refuseCodes: true, echoSecrets: true });
  let sent: URL | undefined;
  const auth = oauth({ redirectUri: REDIRECT_URI, redirect: async (url) => void (sent = url) });
  await rejectionOf(mcpTools({ url: w.mcpUrl, auth }));
  const err = await rejectionOf(auth.complete(await followRedirect(sent!)));
  expect(err).toMatchObject({ reason: "token" });
  expectNone([everyText(err)], wireSecrets(w));
});
