// What every runtime's runner calls: builds the providers the host asked for (pointed at
// its mock servers), runs the scenario against each, and returns plain data.
import { createClient, type Provider } from "toolloop";
import { claude } from "toolloop/claude";
import { openaiCompatible } from "toolloop/openai";
import { scriptedProvider } from "toolloop/testing";
import { runScenario, type ScenarioSummary } from "./scenario.js";
import { turnFor } from "./script.js";

export interface E2EConfig {
  /** The host's mock servers (base URLs including /v1) and the key they expect. */
  claudeURL?: string;
  openaiURL?: string;
  apiKey?: string;
  /** Also run against the in-process scripted provider (no HTTP). */
  scripted?: boolean;
}

/** What happened when a key was about to go to the vendor's own host. */
export type KeyGuard = "refused" | "sent" | `unexpected: ${string}`;

export interface E2EReport {
  runtime: string;
  summaries: ScenarioSummary[];
  /** Per provider: a key for the vendor host without / with dangerouslyAllowBrowser. */
  keyGuard: Record<string, { plain: KeyGuard; allowed: KeyGuard }>;
}

/** Which runtime this is, from globals only (so the host can check it ran where it meant to). */
export function describeRuntime(): string {
  const g = globalThis as Record<string, unknown> & { navigator?: { userAgent?: string } };
  if (typeof g.Deno === "object") return `deno ${(g.Deno as { version: { deno: string } }).version.deno}`;
  if (typeof g.Bun === "object") return `bun ${(g.Bun as { version: string }).version}`;
  const ua = g.navigator?.userAgent ?? "";
  if (ua.includes("Cloudflare-Workers")) return "workerd";
  if (ua.includes("Chrome")) return `chromium ${/Chrome\/([\d.]+)/.exec(ua)?.[1] ?? ""}`;
  const proc = g.process as { versions?: { node?: string } } | undefined;
  if (proc?.versions?.node) return `node ${proc.versions.node}`;
  return ua || "unknown";
}

function scripted(): Provider {
  return scriptedProvider(
    [
      (request) => {
        const t = turnFor(JSON.stringify(request.messages));
        return { text: t.text, toolCalls: t.toolCalls?.map((c) => ({ name: c.name, arguments: c.input })) };
      },
    ],
    { onExhausted: "repeat-last" },
  );
}

type Factory = (options: { apiKey: string; baseURL?: string; fetch?: typeof fetch; dangerouslyAllowBrowser?: boolean }) => Provider;

interface ProviderUnderTest {
  make: Factory;
  /** Which config field holds this provider's mock URL. */
  field: "claudeURL" | "openaiURL";
  /**
   * Extra options for the scenario run. Claude: none, because a localhost baseURL is a
   * proxy, not Anthropic's host, so a browser may send the key there. An OpenAI-compatible
   * server's own URL is its vendor host, so the browser needs dangerouslyAllowBrowser.
   */
  scenario: { dangerouslyAllowBrowser?: boolean };
}

const providers: Record<string, ProviderUnderTest> = {
  claude: { make: (o) => claude({ model: "claude-sonnet-4-5", ...o }), field: "claudeURL", scenario: {} },
  "openai-compatible": {
    // Without a baseURL (the key-guard runs) it points at a made-up vendor host.
    make: (o) => openaiCompatible({ model: "gpt-4.1-mini", ...o, baseURL: o.baseURL ?? "https://llm.example.test/v1" }),
    field: "openaiURL",
    scenario: { dangerouslyAllowBrowser: true },
  },
};

/**
 * A key headed for the vendor's own URL (no baseURL given): browsers must refuse it
 * unless dangerouslyAllowBrowser is set; servers send it. The fetch is a stub, so nothing
 * leaves the machine either way.
 */
async function keyGuard(make: Factory, allow: boolean): Promise<KeyGuard> {
  let sent = false;
  const stub: typeof fetch = async () => {
    sent = true;
    return new Response(JSON.stringify({ error: { type: "stub", message: "stub" } }), { status: 418 });
  };
  try {
    const client = createClient({ provider: make({ apiKey: "sk-guard-key", fetch: stub, dangerouslyAllowBrowser: allow }), maxRetries: 0 });
    await client.chat("hi");
    return "unexpected: the stub answered 418 but chat resolved";
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "browser_key") return sent ? "unexpected: refused after sending" : "refused";
    if (sent) return "sent";
    return `unexpected: ${(err as Error).name} ${code ?? ""} ${(err as Error).message}`;
  }
}

export async function runAll(config: E2EConfig): Promise<E2EReport> {
  const summaries: ScenarioSummary[] = [];
  const guards: E2EReport["keyGuard"] = {};
  if (config.scripted) summaries.push(await runScenario({ label: "scripted", provider: scripted() }));
  for (const [label, p] of Object.entries(providers)) {
    const baseURL = config[p.field];
    if (!baseURL) continue;
    const provider = p.make({ apiKey: config.apiKey ?? "test-key", baseURL, ...p.scenario });
    summaries.push(await runScenario({ label, provider }));
    guards[label] = { plain: await keyGuard(p.make, false), allowed: await keyGuard(p.make, true) };
  }
  return { runtime: describeRuntime(), summaries, keyGuard: guards };
}
