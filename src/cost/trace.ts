// createClient({ tracer }): OpenTelemetry GenAI spans without depending on
// @opentelemetry/api. A tracer is anything with OpenTelemetry's startSpan(name, options,
// context) shape; children nest through the context argument, which carries the parent span
// under the key OpenTelemetry's own trace.setSpan() uses, so any OpenTelemetry SDK shows one
// tree: invoke_agent (the run) > chat {model} (each model call), execute_tool {name} (each call).
import { InvalidOptionsError } from "../base/index.js";
import type { Provider } from "../conversation/index.js";
import type { RunResult } from "../loop/index.js";
import { type Tool, type ToolCallResult, type ToolContext, withCall } from "../tools/index.js";
import { wrap } from "./wrap.js";

type AttributeValue = string | number | boolean | string[];

/** The part of OpenTelemetry's Context the SDKs read (and write, for a root span). */
export interface TraceContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): TraceContext;
  deleteValue(key: symbol): TraceContext;
}

export interface TraceSpan {
  setAttribute(key: string, value: AttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error | string): unknown;
  end(): void;
}

/** OpenTelemetry's Tracer shape (`trace.getTracer(name)` satisfies it). */
export interface Tracer {
  // `kind?: number`, not `number | undefined`: under exactOptionalPropertyTypes OpenTelemetry's
  // Tracer (`kind?: SpanKind`) is assignable only to this form.
  startSpan(name: string, options?: { kind?: number; attributes?: Record<string, AttributeValue> }, context?: TraceContext): TraceSpan;
}

const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");
const CLIENT = 2; // SpanKind.CLIENT: the model call leaves the process
const ERROR = 2; // SpanStatusCode.ERROR
// GenAI semantic-convention names of the providers toolloop ships (others keep their own name).
const SEMCONV_NAMES: Record<string, string> = { claude: "anthropic", gemini: "gcp.gemini" };

function contextOf(values: Map<symbol, unknown>): TraceContext {
  return {
    getValue: (k) => values.get(k),
    setValue: (k, v) => contextOf(new Map(values).set(k, v)),
    deleteValue: (k) => {
      const next = new Map(values);
      next.delete(k);
      return contextOf(next);
    },
  };
}

export interface Tracing {
  provider: Provider;
  tools(tools: readonly Tool[]): Tool[];
  run(fn: () => Promise<RunResult>): Promise<RunResult>;
}

/**
 * The `tracer` option's value: `createClient({ tracer: tracing(otelTracer) })`. Built by this
 * helper (not the tracer itself) so that a client without tracing ships none of it.
 */
export interface TracingLayer {
  readonly tracer: Tracer;
  /** Called once by createClient with the provider it wraps. */
  attach(inner: Provider): Tracing;
}

/**
 * One tool call inside its execute_tool span. The span ends when the handler settles, or when
 * the call is given up without it: aborted or timed out (error status, the reason recorded), or
 * suspended at ctx.requestInput (`toolloop.tool.suspended`, no error), where the handler is left
 * waiting for good and runs again from the start on resume.
 */
function traceCall(t: Tool, input: string, ctx: ToolContext, s: TraceSpan): Promise<ToolCallResult> {
  return new Promise((resolve, reject) => {
    let asking = false;
    const ask = ctx.requestInput;
    // Spread only when there is a requestInput to watch: it reads `signal` (made lazily) either way.
    const c: ToolContext = ask
      ? {
          ...ctx,
          requestInput: (request) => {
            asking = true;
            return ask(request).finally(() => {
              asking = false;
            });
          },
        }
      : ctx;
    const { signal } = c;
    signal.addEventListener(
      "abort",
      () => {
        if (!asking) return reject(signal.reason);
        s.setAttribute("toolloop.tool.suspended", true);
        resolve("");
      },
      { once: true },
    );
    t.call(input, c).then(resolve, reject);
  });
}

export function tracing(tracer: Tracer): TracingLayer {
  if (typeof tracer?.startSpan !== "function") throw new InvalidOptionsError("tracing() needs a tracer with OpenTelemetry's startSpan(name, options, context)");
  return { tracer, attach: (inner) => traced(tracer, inner) };
}

function traced(tracer: Tracer, inner: Provider): Tracing {
  // The running invoke_agent span's context. A client runs one call at a time, so one slot is enough.
  let parent: TraceContext | undefined;
  const providerName = (name: string) => SEMCONV_NAMES[name] ?? name;
  async function span<T>(name: string, attributes: Record<string, AttributeValue>, fn: (s: TraceSpan) => Promise<T>, kind?: number): Promise<T> {
    const s = tracer.startSpan(name, kind === undefined ? { attributes } : { kind, attributes }, parent);
    try {
      return await fn(s);
    } catch (err) {
      const e = err as Error;
      s.recordException(e);
      s.setAttribute("error.type", String((e as { code?: unknown })?.code ?? e?.name));
      s.setStatus({ code: ERROR, message: e?.message ?? String(e) });
      throw err;
    } finally {
      s.end();
    }
  }
  const done = (s: TraceSpan, u: { inputTokens: number; outputTokens: number }) => {
    s.setAttribute("gen_ai.usage.input_tokens", u.inputTokens);
    s.setAttribute("gen_ai.usage.output_tokens", u.outputTokens);
  };
  const base = (operation: string): Record<string, AttributeValue> => ({
    "gen_ai.operation.name": operation,
    "gen_ai.provider.name": providerName(inner.name),
    ...(inner.model && { "gen_ai.request.model": inner.model }),
  });
  return {
    provider: wrap(inner, (request) =>
      span(
        `chat ${inner.model ?? inner.name}`,
        base("chat"),
        async (s) => {
          const r = await inner.generate(request);
          if (r.provider) s.setAttribute("gen_ai.provider.name", providerName(r.provider));
          done(s, r.usage);
          s.setAttribute("gen_ai.response.finish_reasons", [r.finishReason]);
          return r;
        },
        CLIENT,
      ),
    ),
    tools: (tools) =>
      tools.map((t) => {
        const name = t.name.toLowerCase(); // the name the model calls (registry.ts)
        return withCall(t, (input, ctx) =>
          span(`execute_tool ${name}`, { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.id": ctx.callId }, (s) =>
            traceCall(t, input, ctx, s),
          ),
        );
      }),
    // The root: made before `parent` is set, so it nests under the caller's active span if any.
    run: (fn) =>
      span("invoke_agent", base("invoke_agent"), async (s) => {
        parent = contextOf(new Map([[SPAN_KEY, s]]));
        try {
          const r = await fn();
          done(s, r.usage);
          return r;
        } finally {
          parent = undefined;
        }
      }),
  };
}
