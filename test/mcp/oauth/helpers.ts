// Shared pieces of the oauth() suites: a connected client against a World, and rejection capture.
import { type McpToolSet, mcpTools, type OAuth, type OAuthOptions, oauth } from "../../../adapters/mcp/index.js";
import { silentLogger } from "../../../src/base/log.js";
import type { ToolContext } from "../../../src/index.js";
import { followRedirect, REDIRECT_URI, type World } from "./world.js";

export const ctx = (): ToolContext => ({ signal: new AbortController().signal, callId: "c1", logger: silentLogger }) as ToolContext;

/** oauth() whose redirect step approves at once (and counts its calls); options override. */
export function approvingAuth(extra: Partial<OAuthOptions> = {}): { auth: OAuth; redirects: URL[] } {
  const redirects: URL[] = [];
  const auth = oauth({
    redirectUri: REDIRECT_URI,
    redirect: async (url) => {
      redirects.push(url);
      return followRedirect(url);
    },
    ...extra,
  });
  return { auth, redirects };
}

/** mcpTools with oauth() against the world; the tool set is closed by the caller's afterEach through `opened`. */
export async function connect(w: World, extra: Partial<OAuthOptions> = {}): Promise<{ auth: OAuth; redirects: URL[]; tools: McpToolSet }> {
  const { auth, redirects } = approvingAuth(extra);
  const tools = await mcpTools({ url: w.mcpUrl, auth });
  return { auth, redirects, tools };
}

export async function rejectionOf(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

/** The log entries of one endpoint (path ends with `suffix`). */
export function hits(w: World, suffix: string): World["log"] {
  return w.log.filter((e) => e.path.endsWith(suffix));
}
