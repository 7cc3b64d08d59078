// What an app does with an OAuth-protected MCP server, written once for every runtime (a
// Worker's Durable Object, a page, Node): connect through oauth(), let an agent call the
// server's tools, and keep everything the app can see as text — each log line, each error
// (message, stack, JSON, fields, causes), the history, the spans, what the model was sent —
// so the test can search it for secrets. Imports only the public package.
import { createClient, type Logger, tracing } from "toolloop";
import { type McpToolSet, mcpTools, type OAuth } from "toolloop/mcp";
import { scriptedProvider } from "toolloop/testing";

export interface Report {
  /** Log lines as JSON ({ level, message, fields }). */
  logs: string[];
  /** Every text of every error the app caught. */
  errors: string[];
  /** The errors' codes and reasons, e.g. "auth_error/pending". */
  failures: string[];
  /** Spans as JSON (name, attributes, status, exceptions). */
  spans: string[];
  /** client.history as JSON, after the run. */
  history?: string;
  /** What the model was sent, as JSON. */
  modelRequests?: string;
  names?: string[];
  answer?: string;
  /** With AuthError "pending": where to send the user. */
  authorizationUrl?: string;
}

export interface Recorder {
  report: Report;
  logger: Logger;
  tracer: Parameters<typeof tracing>[0];
  /** Keeps every text of `err` (and its causes). */
  fail(err: unknown): void;
}

/** Every text an error shows: String(), message, stack, JSON, its own fields; and each cause's. */
export function errorTexts(err: unknown): string[] {
  const out: string[] = [];
  let e = err as Record<string, unknown> | undefined;
  for (let depth = 0; e !== undefined && e !== null && depth < 8; depth++, e = e.cause as Record<string, unknown> | undefined) {
    out.push(String(e));
    if (typeof e !== "object") break;
    out.push(String(e.message), String(e.stack), JSON.stringify(e) ?? "");
    for (const key of Object.keys(e)) out.push(`${key}=${String(e[key])}`);
  }
  return out;
}

/** `echo`: each line also goes to the console (a page's console is what a user or devtools sees). */
export function recorder(echo = false): Recorder {
  const report: Report = { logs: [], errors: [], failures: [], spans: [] };
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    const line = JSON.stringify({ level, message, fields });
    report.logs.push(line);
    if (echo) console.info(line);
  };
  const spans: { name: string; attributes: Record<string, unknown>; status?: unknown; exceptions: string[] }[] = [];
  const tracer: Recorder["tracer"] = {
    startSpan(name, options) {
      const span = { name, attributes: { ...options?.attributes } as Record<string, unknown>, exceptions: [] as string[], status: undefined as unknown };
      spans.push(span);
      return {
        setAttribute: (k, v) => void (span.attributes[k] = v),
        setStatus: (s) => void (span.status = s),
        recordException: (e) => void span.exceptions.push(...errorTexts(e)),
        end: () => void report.spans.push(JSON.stringify(span)),
      };
    },
  };
  return {
    report,
    logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") },
    tracer,
    fail(err) {
      const e = err as { code?: unknown; reason?: unknown; authorizationUrl?: unknown };
      report.errors.push(...errorTexts(err));
      report.failures.push(`${String(e?.code)}/${String(e?.reason)}`);
      if (e?.reason === "pending" && typeof e.authorizationUrl === "string") report.authorizationUrl = e.authorizationUrl;
      if (echo) console.error(String(err));
    },
  };
}

/**
 * Connects to the ticket server with `auth` and has an agent look up ticket T-1 and ask who it
 * is (the server quotes the bearer token there). A failure (the pending authorization
 * included) is recorded, never thrown.
 */
export async function useTickets(auth: OAuth, mcpUrl: string, rec: Recorder): Promise<void> {
  let tools: McpToolSet | undefined;
  try {
    tools = await mcpTools({ url: mcpUrl, auth, logger: rec.logger });
    rec.report.names = tools.map((t) => t.name);
    const provider = scriptedProvider([
      {
        toolCalls: [
          { name: "ticket_status", arguments: { id: "T-1" } },
          { name: "whoami", arguments: {} },
        ],
      },
      "T-1 is open and assigned to Ada.",
    ]);
    const client = createClient({ provider, tools, tracer: tracing(rec.tracer), logger: rec.logger });
    rec.report.answer = await client.chat("What is the status of T-1, and who am I?");
    rec.report.history = JSON.stringify(client.history);
    rec.report.modelRequests = JSON.stringify(provider.requests);
  } catch (err) {
    rec.fail(err);
  } finally {
    await tools?.close().catch((err: unknown) => rec.fail(err));
  }
}

/** Everything a report holds, as one text to search. */
export function everything(report: Report): string {
  return JSON.stringify(report);
}
