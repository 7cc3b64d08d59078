// toolloop/claude-local: the Claude Code CLI on this machine as a Provider. Each request
// runs `claude -p` once, hands it the conversation on stdin and reads the result JSON
// from stdout, so a logged-in Claude Code (subscription or its own key) answers chat(),
// ask() and stream() without an API key in the program.
//
// Why a transcript and not `--resume` or stream-json input: the client's history is the
// source of truth (it can be edited, stored, resumed with createClient({ history }), or
// come from another provider). `--resume <session>` would answer from the CLI's own copy
// of the conversation instead, and `--input-format stream-json` only takes user turns
// (each one is answered in turn, so earlier assistant replies cannot be replayed).
// Rendering the history as a transcript in one prompt is the form every CLI version
// takes and keeps each request a pure function of `request.messages`.
//
// This is the one adapter that starts processes, so it is the one place that knows the
// runtime: Deno.Command in Deno, Bun.spawn in Bun, node:child_process in Node (loaded
// lazily, so importing this module never pulls a node: module into a bundle). Browsers
// and Workers get RuntimeNotSupportedError.
import { abortReason, ToolloopError } from "../src/errors.js";
import { isBrowser } from "../src/http.js";
import type { Message, Usage } from "../src/messages.js";
import type { FinishReason, ModelRequest, ModelResponse, Provider } from "../src/provider.js";

export interface ClaudeLocalOptions {
  /** The CLI to run: a name looked up on PATH, or a path. Default "claude". */
  command?: string;
  /** `--model`: an alias ("sonnet", "opus") or a full model name. Default: the CLI's own. */
  model?: string;
  /** Working directory of the CLI (its project: CLAUDE.md, settings, files it may read). */
  cwd?: string;
  /** ms before a request's CLI process is killed and the request fails. Default: none. */
  timeout?: number;
  /** Variables set for the CLI on top of this process's environment; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** More CLI arguments, added after toolloop's own (e.g. ["--tools", ""] or ["--max-turns", "1"]). */
  extraArgs?: readonly string[];
}

/** Spawning processes is impossible here (browser, Worker). */
export class RuntimeNotSupportedError extends ToolloopError {
  readonly runtime: string;
  constructor(runtime: string) {
    super(
      "runtime_not_supported",
      `claude-local runs the Claude Code CLI as a child process, which ${runtime} cannot do; use it from Node, Deno or Bun`,
    );
    this.runtime = runtime;
  }
}

/** Why a CLI run failed. */
export type ClaudeCliFailure =
  | "not_found" // the command could not be started (ENOENT / NotFound)
  | "exit" // the process exited non-zero (or was killed) without a result
  | "bad_output" // stdout held no result JSON
  | "result_error" // the CLI reported an error result (is_error, or an error subtype)
  | "timeout"; // the `timeout` option passed; the process was killed

/** The Claude Code CLI failed. Carries the last ~2 KB of its stderr. */
export class ClaudeCliError extends ToolloopError {
  readonly reason: ClaudeCliFailure;
  readonly command: string;
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  /** The end of what the CLI wrote to stderr (at most STDERR_TAIL characters). */
  readonly stderr: string;
  /** The result's subtype when the CLI reported one ("error_max_turns", ...). */
  readonly subtype: string | undefined;
  readonly sessionId: string | undefined;
  constructor(init: {
    reason: ClaudeCliFailure;
    command: string;
    message: string;
    exitCode?: number | null;
    signal?: string | null;
    stderr?: string;
    subtype?: string;
    sessionId?: string;
    cause?: unknown;
  }) {
    const stderr = init.stderr ?? "";
    const tail = stderr.trim() ? `\nstderr: ${stderr.trim()}` : "";
    super("cli_error", `claude-local: ${init.message}${tail}`, { cause: init.cause });
    this.reason = init.reason;
    this.command = init.command;
    this.exitCode = init.exitCode ?? undefined;
    this.signal = init.signal ?? undefined;
    this.stderr = stderr;
    this.subtype = init.subtype;
    this.sessionId = init.sessionId;
  }
}

export interface ClaudeLocalProvider extends Provider {
  readonly name: "claude-local";
  readonly supportsTools: false;
  toJSON(): { name: string; model: string | undefined };
}

const STDERR_TAIL = 2048;
/** After SIGTERM, how long a process gets before SIGKILL. */
const KILL_GRACE_MS = 2000;

/** A Provider that runs the local Claude Code CLI in print mode. It has no tools. */
export function claudeLocal(options: ClaudeLocalOptions = {}): ClaudeLocalProvider {
  const command = options.command ?? "claude";
  if (options.timeout !== undefined && !(options.timeout > 0)) {
    throw new RangeError(`claudeLocal: timeout must be a positive number of ms, got ${options.timeout}`);
  }
  return {
    name: "claude-local",
    model: options.model,
    supportsTools: false,
    toJSON: () => ({ name: "claude-local", model: options.model }),
    async generate(request) {
      if (request.signal?.aborted) throw abortReason(request.signal);
      const spawn = await spawner();
      const streaming = request.onDelta !== undefined;
      const args = cliArgs(options, request, streaming);
      const decoder = streaming ? new StreamDecoder(request.onDelta) : undefined;
      const run = await runProcess(spawn, command, args, transcript(request.messages), {
        cwd: options.cwd,
        env: options.env,
        timeout: options.timeout,
        signal: request.signal,
        onStdout: decoder ? (text) => decoder.push(text) : undefined,
      });
      decoder?.end();
      const result = decoder ? decoder.result : parseJSONOutput(run.stdout);
      const response = toResponse(result, run, command);
      if (decoder && !decoder.streamedText && response.text) {
        // No partial messages came (an older CLI, or settings that turn them off): the
        // caller still gets the text, as one delta.
        request.onDelta!({ type: "text-delta", text: response.text });
      }
      return response;
    },
  };
}

// ---------------------------------------------------------------------------------------
// The command line and the prompt

function cliArgs(options: ClaudeLocalOptions, request: ModelRequest, streaming: boolean): string[] {
  // `--flag=value` so a value that starts with "-" is never read as another flag.
  const args = ["-p", `--output-format=${streaming ? "stream-json" : "json"}`];
  // stream-json in print mode requires --verbose; partial messages carry the text deltas.
  if (streaming) args.push("--verbose", "--include-partial-messages");
  if (options.model) args.push(`--model=${options.model}`);
  if (request.system) args.push(`--system-prompt=${request.system}`);
  if (request.responseSchema) args.push(`--append-system-prompt=${schemaInstruction(request.responseSchema.schema)}`);
  if (options.extraArgs) args.push(...options.extraArgs);
  return args;
}

function schemaInstruction(schema: unknown): string {
  return (
    "Answer with only a JSON value that matches the JSON Schema below: no prose before or after it " +
    `and no code fences.\n${JSON.stringify(schema)}`
  );
}

/**
 * The conversation as one prompt: earlier turns in a tagged transcript, then the latest
 * user message(s) as the request itself. A single user message is sent as it is.
 */
function transcript(messages: readonly Message[]): string {
  let split = messages.length;
  while (split > 0 && messages[split - 1]!.role === "user") split--;
  const current = messages
    .slice(split)
    .map((m) => (m as { content: string }).content)
    .filter((c) => c.trim() !== "")
    .join("\n\n");
  const earlier = messages.slice(0, split);
  if (earlier.length === 0) return current;
  const turns = earlier.map(renderTurn).filter((t) => t !== "");
  const history =
    "Earlier turns of this conversation, oldest first:\n<conversation_history>\n" + turns.join("\n") + "\n</conversation_history>";
  return `${history}\n\n${current || "Continue the conversation from where it left off."}`;
}

function renderTurn(m: Message): string {
  switch (m.role) {
    case "user":
      return m.content.trim() ? `<user>\n${m.content}\n</user>` : "";
    case "assistant": {
      const calls = (m.toolCalls ?? []).map((c) => `<tool_call name="${c.name}">${c.arguments || "{}"}</tool_call>`);
      const body = [m.content, ...calls].filter((s) => s.trim() !== "").join("\n");
      return body ? `<assistant>\n${body}\n</assistant>` : "";
    }
    case "tool": {
      const results = m.results.map(
        (r) => `<tool_result name="${r.name}"${r.isError ? ' is_error="true"' : ""}>${r.output}</tool_result>`,
      );
      return `<tool_results>\n${results.join("\n")}\n</tool_results>`;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Reading the CLI's output

/** The fields of the CLI's result object that toolloop reads. */
interface CliResult {
  type: "result";
  subtype?: unknown;
  is_error?: unknown;
  result?: unknown;
  errors?: unknown;
  session_id?: unknown;
  stop_reason?: unknown;
  usage?: unknown;
}

function isResult(v: unknown): v is CliResult {
  return typeof v === "object" && v !== null && (v as { type?: unknown }).type === "result";
}

/** `--output-format json` prints one result object (with --verbose, an array of messages). */
function parseJSONOutput(stdout: string): CliResult | undefined {
  const pick = (v: unknown): CliResult | undefined =>
    isResult(v) ? v : Array.isArray(v) ? [...v].reverse().find(isResult) : undefined;
  const text = stdout.trim();
  if (!text) return undefined;
  try {
    return pick(JSON.parse(text));
  } catch {
    // Something else shared stdout (a warning line): take the last line that is a result.
    for (const line of text.split("\n").reverse()) {
      try {
        const r = pick(JSON.parse(line));
        if (r) return r;
      } catch {
        // not JSON
      }
    }
    return undefined;
  }
}

/**
 * Decodes `--output-format stream-json` (NDJSON): text deltas from partial messages go to
 * onDelta as they arrive; the result line is kept. Fed arbitrary string chunks.
 */
class StreamDecoder {
  result: CliResult | undefined;
  streamedText = false;
  private buffer = "";
  constructor(private readonly onDelta: ModelRequest["onDelta"]) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      this.line(line);
    }
  }

  end(): void {
    const rest = this.buffer;
    this.buffer = "";
    this.line(rest);
  }

  private line(raw: string): void {
    const line = raw.trim();
    if (!line) return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      return; // not an event; a missing result line is reported at the end
    }
    if (isResult(msg)) {
      this.result = msg;
      return;
    }
    const m = msg as {
      type?: unknown;
      parent_tool_use_id?: unknown;
      event?: { type?: unknown; delta?: { type?: unknown; text?: unknown } };
    };
    if (m.type !== "stream_event" || m.event?.type !== "content_block_delta") return;
    // A subagent's text (Claude Code's Task tool) is not part of the answer.
    if (typeof m.parent_tool_use_id === "string") return;
    const d = m.event.delta;
    if (d?.type === "text_delta" && typeof d.text === "string" && d.text !== "") {
      this.streamedText = true;
      this.onDelta?.({ type: "text-delta", text: d.text });
    }
  }
}

function toResponse(result: CliResult | undefined, run: ProcessResult, command: string): ModelResponse {
  const base = { command, exitCode: run.code, signal: run.signal, stderr: run.stderr };
  if (!result) {
    if (run.code !== 0) {
      const how = run.signal ? `was killed by ${run.signal}` : `exited with code ${run.code}`;
      throw new ClaudeCliError({ ...base, reason: "exit", message: `${command} ${how}` });
    }
    const seen = run.stdout.trim().slice(0, 200);
    throw new ClaudeCliError({
      ...base,
      reason: "bad_output",
      message: `${command} printed no result JSON${seen ? `: ${JSON.stringify(seen)}` : " (stdout was empty)"}`,
    });
  }
  const subtype = typeof result.subtype === "string" ? result.subtype : undefined;
  const sessionId = typeof result.session_id === "string" ? result.session_id : undefined;
  if (result.is_error === true || (subtype !== undefined && subtype !== "success")) {
    const errors = Array.isArray(result.errors) ? result.errors.filter((e): e is string => typeof e === "string") : [];
    const said = typeof result.result === "string" && result.result ? result.result : errors.join("; ");
    throw new ClaudeCliError({
      ...base,
      reason: "result_error",
      subtype,
      sessionId,
      message: `the CLI reported an error${subtype && subtype !== "success" ? ` (${subtype})` : ""}: ${said || "no details"}`,
    });
  }
  return {
    text: typeof result.result === "string" ? result.result : "",
    toolCalls: [],
    finishReason: finishReason(result.stop_reason),
    usage: usageOf(result.usage),
  };
}

function finishReason(stop: unknown): FinishReason {
  if (stop === "max_tokens" || stop === "model_context_window_exceeded") return "length";
  if (stop === "refusal") return "content-filter";
  return "stop"; // a result is a final answer (older CLIs send no stop_reason)
}

/** Anthropic usage → neutral, counted as toolloop/claude counts it: cache reads are reported apart. */
function usageOf(raw: unknown): Usage {
  const u = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const usage: Usage = { inputTokens: num(u.input_tokens) ?? 0, outputTokens: num(u.output_tokens) ?? 0 };
  const cached = num(u.cache_read_input_tokens);
  if (cached !== undefined) usage.cachedInputTokens = cached;
  const tools = u.server_tool_use;
  const searches = typeof tools === "object" && tools !== null ? num((tools as Record<string, unknown>).web_search_requests) : undefined;
  if (searches !== undefined) usage.webSearches = searches;
  return usage;
}

// ---------------------------------------------------------------------------------------
// Running a process, the same way in every runtime

interface Child {
  stdout: AsyncIterable<Uint8Array>;
  stderr: AsyncIterable<Uint8Array>;
  /** Writes `input` to stdin and closes it. Not awaited by the runner: a dead child shows in `exit`. */
  writeInput(input: string): Promise<void>;
  exit: Promise<{ code: number | null; signal: string | null }>;
  kill(signal: "SIGTERM" | "SIGKILL"): void;
}

interface SpawnOptions {
  cwd: string | undefined;
  env: Record<string, string | undefined> | undefined;
}

/** Starts a process; rejects with ClaudeCliError("not_found") when it cannot start. */
type Spawner = (command: string, args: string[], options: SpawnOptions) => Promise<Child>;

interface ProcessResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one CLI invocation to its end. On abort or timeout the process is killed (SIGTERM,
 * then SIGKILL) and the call rejects with signal.reason / a timeout ClaudeCliError.
 */
async function runProcess(
  spawn: Spawner,
  command: string,
  args: string[],
  input: string,
  opts: SpawnOptions & { timeout: number | undefined; signal: AbortSignal | undefined; onStdout?: (text: string) => void },
): Promise<ProcessResult> {
  const child = await spawn(command, args, { cwd: opts.cwd, env: opts.env });
  const { signal, timeout } = opts;
  let stdout = "";
  let stderr = "";
  const collectStdout = async () => {
    const decoder = new TextDecoder();
    const take = opts.onStdout ?? ((text: string) => void (stdout += text));
    for await (const chunk of child.stdout) take(decoder.decode(chunk, { stream: true }));
    take(decoder.decode());
  };
  const collectStderr = async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) stderr = tail(stderr + decoder.decode(chunk, { stream: true }));
    stderr = tail(stderr + decoder.decode());
  };
  // Not awaited: a process that exits without reading its input is reported by its exit.
  child.writeInput(input).catch(() => {});
  const finished = Promise.all([collectStdout(), collectStderr(), child.exit]).then(
    ([, , exit]) => ({ kind: "exit" as const, exit }),
    (error: unknown) => ({ kind: "failed" as const, error }),
  );

  type Stop = { kind: "abort" } | { kind: "timeout" };
  let stop: (why: Stop) => void = () => {};
  const stopped = new Promise<Stop>((resolve) => (stop = resolve));
  const onAbort = () => stop({ kind: "abort" });
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  const timer = timeout !== undefined ? setTimeout(() => stop({ kind: "timeout" }), timeout) : undefined;
  try {
    const outcome = await Promise.race([finished, stopped]);
    if (outcome.kind === "exit") return { ...outcome.exit, stdout, stderr };
    // Aborted, timed out, or reading failed (e.g. a throwing onDelta): end the process,
    // and let the readers drain so no stream is left open.
    await terminate(child);
    await within(finished, KILL_GRACE_MS);
    if (outcome.kind === "failed") throw outcome.error;
    if (outcome.kind === "abort") throw abortReason(signal!);
    throw new ClaudeCliError({
      reason: "timeout",
      command,
      message: `${command} did not finish within ${timeout} ms (timeout) and was killed`,
      stderr,
    });
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/** Waits for `p`, or `ms`, whichever comes first (and leaves no timer behind). */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([p.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM, then SIGKILL if the process is still there after a grace period. */
async function terminate(child: Child): Promise<void> {
  child.kill("SIGTERM");
  if (await within(child.exit, KILL_GRACE_MS)) return;
  child.kill("SIGKILL");
  await within(child.exit, KILL_GRACE_MS);
}

function tail(s: string): string {
  return s.length > STDERR_TAIL ? s.slice(s.length - STDERR_TAIL) : s;
}

function notFound(command: string, cwd: string | undefined, cause: unknown): ClaudeCliError {
  return new ClaudeCliError({
    reason: "not_found",
    command,
    message:
      `could not start "${command}": not found` +
      (cwd ? ` (or the cwd ${JSON.stringify(cwd)} does not exist)` : "") +
      ". Install Claude Code (https://docs.anthropic.com/en/docs/claude-code) or pass `command` with its path",
    cause,
  });
}

function mergeEnv(
  base: Record<string, string | undefined>,
  extra: Record<string, string | undefined> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) out[k] = v;
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

// The minimal slices of each runtime's process API used here (no runtime typings needed).

interface DenoGlobal {
  Command: new (
    command: string,
    options: {
      args: string[];
      cwd?: string;
      env?: Record<string, string>;
      clearEnv?: boolean;
      stdin: "piped";
      stdout: "piped";
      stderr: "piped";
    },
  ) => {
    spawn(): {
      stdin: WritableStream<Uint8Array>;
      stdout: ReadableStream<Uint8Array>;
      stderr: ReadableStream<Uint8Array>;
      status: Promise<{ code: number; signal: string | null }>;
      kill(signal?: string): void;
    };
  };
  env: { toObject(): Record<string, string> };
}

interface BunGlobal {
  spawn(
    cmd: string[],
    options: {
      cwd?: string;
      env?: Record<string, string>;
      stdin: "pipe";
      stdout: "pipe";
      stderr: "pipe";
    },
  ): {
    stdin: { write(data: string): unknown; end(): unknown };
    stdout: ReadableStream<Uint8Array>;
    stderr: ReadableStream<Uint8Array>;
    exited: Promise<number>;
    exitCode: number | null;
    signalCode: string | null;
    kill(signal?: string): void;
  };
  env: Record<string, string | undefined>;
}

interface NodeChildProcess {
  spawn(
    command: string,
    args: string[],
    options: { cwd?: string; env?: Record<string, string>; stdio: ["pipe", "pipe", "pipe"]; windowsHide: boolean },
  ): NodeChild;
}

interface NodeChild {
  stdin: { end(data: string, encoding: "utf8", cb: () => void): void; on(event: "error", cb: (err: unknown) => void): void };
  stdout: AsyncIterable<Uint8Array>;
  stderr: AsyncIterable<Uint8Array>;
  once(event: "spawn", cb: () => void): void;
  once(event: "error", cb: (err: unknown) => void): void;
  once(event: "exit", cb: (code: number | null, signal: string | null) => void): void;
  on(event: "error", cb: (err: unknown) => void): void;
  kill(signal: string): boolean;
  exitCode: number | null;
  signalCode: string | null;
}

type Globals = {
  Deno?: DenoGlobal;
  Bun?: BunGlobal;
  process?: { versions?: { node?: string }; env?: Record<string, string | undefined> };
  navigator?: { userAgent?: string };
};

// A variable, not a literal, so bundlers for browsers and Workers leave the import alone
// (it is never reached there) instead of failing to resolve a node: module.
const NODE_CHILD_PROCESS = "node:child_process";

/** The process API of the runtime this code runs in. */
async function spawner(): Promise<Spawner> {
  const g = globalThis as Globals;
  if (typeof g.Deno?.Command === "function") return denoSpawner(g.Deno);
  if (typeof g.Bun?.spawn === "function") return bunSpawner(g.Bun);
  if (isBrowser()) throw new RuntimeNotSupportedError("a browser");
  if (g.navigator?.userAgent === "Cloudflare-Workers") throw new RuntimeNotSupportedError("a Cloudflare Worker");
  if (g.process?.versions?.node) {
    const cp = (await import(/* @vite-ignore */ NODE_CHILD_PROCESS)) as NodeChildProcess;
    return nodeSpawner(cp, g.process.env ?? {});
  }
  throw new RuntimeNotSupportedError("this runtime");
}

function denoSpawner(deno: DenoGlobal): Spawner {
  return async (command, args, { cwd, env }) => {
    // Deno merges `env` into its own environment; removing a variable needs the full set.
    const removes = env !== undefined && Object.values(env).some((v) => v === undefined);
    const childEnv = removes ? mergeEnv(deno.env.toObject(), env) : env ? mergeEnv({}, env) : undefined;
    let child;
    try {
      child = new deno.Command(command, {
        args,
        ...(cwd !== undefined ? { cwd } : {}),
        ...(childEnv ? { env: childEnv } : {}),
        ...(removes ? { clearEnv: true } : {}),
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (err) {
      if ((err as { name?: unknown }).name === "NotFound") throw notFound(command, cwd, err);
      throw err;
    }
    const proc = child;
    return {
      stdout: proc.stdout as unknown as AsyncIterable<Uint8Array>,
      stderr: proc.stderr as unknown as AsyncIterable<Uint8Array>,
      async writeInput(input) {
        const writer = proc.stdin.getWriter();
        try {
          await writer.write(new TextEncoder().encode(input));
          await writer.close();
        } catch {
          // the process closed stdin early (exited); its exit status tells the story
        }
      },
      exit: proc.status.then((s) => ({ code: s.signal ? null : s.code, signal: s.signal })),
      kill(sig) {
        try {
          proc.kill(sig);
        } catch {
          // already exited
        }
      },
    };
  };
}

function bunSpawner(bun: BunGlobal): Spawner {
  return async (command, args, { cwd, env }) => {
    let proc;
    try {
      proc = bun.spawn([command, ...args], {
        ...(cwd !== undefined ? { cwd } : {}),
        // Bun replaces the environment with `env`, so start from its own.
        env: mergeEnv(bun.env, env),
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === "ENOENT" || /ENOENT|not found|no such file/i.test(String((err as Error)?.message))) {
        throw notFound(command, cwd, err);
      }
      throw err;
    }
    const p = proc;
    return {
      stdout: p.stdout as unknown as AsyncIterable<Uint8Array>,
      stderr: p.stderr as unknown as AsyncIterable<Uint8Array>,
      async writeInput(input) {
        try {
          p.stdin.write(input);
          await p.stdin.end();
        } catch {
          // the process closed stdin early
        }
      },
      exit: p.exited.then(() => ({ code: p.signalCode ? null : p.exitCode, signal: p.signalCode })),
      kill(sig) {
        try {
          p.kill(sig);
        } catch {
          // already exited
        }
      },
    };
  };
}

function nodeSpawner(cp: NodeChildProcess, baseEnv: Record<string, string | undefined>): Spawner {
  return (command, args, { cwd, env }) =>
    new Promise<Child>((resolve, reject) => {
      const child = cp.spawn(command, args, {
        ...(cwd !== undefined ? { cwd } : {}),
        // Node replaces the environment with `env` (and looks the command up on its PATH).
        env: mergeEnv(baseEnv, env),
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
      const exit = new Promise<{ code: number | null; signal: string | null }>((res) =>
        child.once("exit", (code, signal) => res({ code, signal })),
      );
      child.stdin.on("error", () => {
        // EPIPE when the process exits before reading its input; the exit code reports it
      });
      child.once("error", (err) => {
        const code = (err as { code?: unknown }).code;
        reject(code === "ENOENT" ? notFound(command, cwd, err) : err);
      });
      child.once("spawn", () => {
        child.on("error", () => {
          // later errors (a failed kill) surface through exit or the streams
        });
        resolve({
          stdout: child.stdout,
          stderr: child.stderr,
          writeInput: (input) => new Promise<void>((res) => child.stdin.end(input, "utf8", () => res())),
          exit,
          kill(sig) {
            if (child.exitCode === null && child.signalCode === null) child.kill(sig);
          },
        });
      });
    });
}
