// What suspension and step control cost a minimal agent that uses neither (issue 14: at most
// 0.5 KiB gzip). A what-if build: a throwaway git worktree (with this checkout's src/ and
// adapters/ as they are now) in which the code behind
// needsApproval / externalTool() / requestInput / decisions / resume / pending, behind
// toolChoice beyond 0.1's auto/none, prepareStep, onStepFinish, stopWhen and per-call
// system / maxSteps, and the client's glue for `tracer` is cut out (EDITS below), then every
// minimal agent is bundled both ways.
//
//   node bench/lib/without-steps.mjs
//   KEEP=1 node bench/lib/without-steps.mjs    keeps the worktree (printed) to diff the bundles
//
// Each edit must match its source exactly once; when the code moves on, the script stops and
// names the edit that no longer applies, so the figure never comes from a half-applied cut.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./paths.mjs";

/** [file, what is there, what a build without the features would have]. */
const EDITS = [
  // client: no suspension value, decisions, resume, pending, done(); no per-call step options
  ["src/client.ts", "  const suspender = options.suspension?.suspender;\n", ""],
  ["src/client.ts", "checkMessage(m, `history[${i}]`, suspender?.check)", "checkMessage(m, `history[${i}]`)"],
  ["src/client.ts", "    toolChoice: call.toolChoice ?? options.toolChoice,\n    steps: options,\n    suspender,\n    toolSet,\n", ""],
  [
    "src/client.ts",
    '    system: call.system ?? options.systemPrompt,\n    maxSteps: positiveInt(call.maxSteps, maxSteps, "maxSteps"),',
    "    system: options.systemPrompt,\n    maxSteps,",
  ],
  [
    "src/client.ts",
    '    const message = prompt === undefined ? undefined : checkMessage({ role: "user", content: prompt }, "prompt");\n    if (call?.decisions && !suspender) throw new InvalidOptionsError(`decisions: resuming ${NEEDS_SUSPENSION}`);\n    const uncancel = await suspender?.before(history, call?.decisions, !!message, cfg, opts);\n',
    '    const message = prompt === undefined ? undefined : checkMessage({ role: "user", content: prompt }, "prompt");\n',
  ],
  ["src/client.ts", "        history.pop();\n        uncancel?.();\n", "        history.pop();\n"],
  ["src/client.ts", "  const done = suspender?.done ?? ((r: RunResult) => r);\n", ""],
  [
    "src/client.ts",
    "  /** A tool set as this client can use it: setTools(), and the tools prepareStep gives a step. */\n  const toolSet = (tools: readonly Tool[]): Registry => {",
    "  const setTools = (tools: readonly Tool[]): void => {",
  ],
  [
    "src/client.ts",
    '    // Without suspension() such a tool could never be answered (nor be held for approval).\n    const waits = !suspender && tools.find((t) => t.external || t.needsApproval);\n    if (waits) throw new InvalidToolError(`tool "${waits.name}" ${NEEDS_SUSPENSION}`);\n',
    "",
  ],
  [
    "src/client.ts",
    "    provider.checkTools?.(next.specs);\n    return next;\n  };\n  const setTools = (tools: readonly Tool[]): void => {\n    registry = toolSet(tools);\n  };",
    "    provider.checkTools?.(next.specs);\n    registry = next;\n  };",
  ],
  ["src/client.ts", 'checkMessage(message, "add()", suspender?.check)', 'checkMessage(message, "add()")'],
  [
    "src/client.ts",
    "      return done(await run(prompt, { signal: callOptions?.signal }, callOptions)).text;",
    "      return (await run(prompt, { signal: callOptions?.signal }, callOptions)).text;",
  ],
  [
    "src/client.ts",
    "    resume(decisions, callOptions) {\n      return run(undefined, { signal: callOptions?.signal }, { ...callOptions, decisions });\n    },\n    get pending() {\n      return suspender?.pending(history) ?? [];\n    },\n",
    "",
  ],
  ["src/client.ts", "let r = done(await runNow(prompt,", "let r = (await runNow(prompt,"],
  [
    "src/client.ts",
    "r = done(await runNow(reask, { signal: callOptions?.signal, responseSchema }, { ...callOptions, decisions: undefined }));",
    "r = await runNow(reask, { signal: callOptions?.signal, responseSchema }, callOptions);",
  ],
  // loop: no gate, stop conditions, prepareStep, onStepFinish's StepResult, run status
  [
    "src/loop.ts",
    '    const r: RunResult = { status: pending[0] ? "suspended" : "done", pending, text, steps, usage, toolCalls, toolFailures };',
    "    const r = { text, steps, usage, toolCalls, toolFailures } as unknown as RunResult;",
  ],
  [
    "src/loop.ts",
    "  const finish = (text: string, steps: number, pending: PendingCall[] = []): RunResult => {",
    "  const finish = (text: string, steps: number): RunResult => {",
  ],
  ["src/loop.ts", "  let prev = opts.resumed; // the step before: what stop conditions read, and a suspended run's text\n", ""],
  [
    "src/loop.ts",
    '    const waiting = cfg.suspender?.waiting(history, emit);\n    if (waiting) return finish(prev ? prev.text : "", step - 1, waiting);\n',
    "",
  ],
  [
    "src/loop.ts",
    "    const last = step > cfg.maxSteps || (prev && [cfg.steps.stopWhen].flat().some((c) => c?.({ steps: step - 1, usage, lastStep: prev! })));\n    const p = (await cfg.steps.prepareStep?.({ step, history: structuredClone(history), usage })) || {};\n    const registry = p.tools ? cfg.toolSet(p.tools) : cfg.registry;\n",
    "    const last = step > cfg.maxSteps;\n    const registry = cfg.registry;\n",
  ],
  ["src/loop.ts", 'p.system ?? cfg.system, last ? "none" : (p.toolChoice ?? cfg.toolChoice));', 'cfg.system, last ? "none" : "auto");'],
  [
    "src/loop.ts",
    '      const s: StepResult = { ...said, type: "step-finish", step, toolCalls: calls, toolResults };\n      emit(s);\n      await cfg.steps.onStepFinish?.(s);\n      return s;\n',
    '      emit({ type: "step-finish", step, finishReason: response.finishReason, usage: response.usage, ...(response.provider && { provider: response.provider }) });\n',
  ],
  ["src/loop.ts", "    prev = await stepFinished(results);\n", "    await stepFinished(results);\n"],
  [
    "src/loop.ts",
    "    // What the step said: the response without what the history keeps apart (providerData) or\n    // renames (calls). Spread first in step-finish, so a custom provider's own fields cannot\n    // pass for the event's type or step.\n    const { providerData, toolCalls: _, ...said } = response;\n",
    "",
  ],
  ["src/loop.ts", "    if (providerData) message.providerData = providerData;", "    if (response.providerData) message.providerData = response.providerData;"],
  ["src/loop.ts", "      suspender: cfg.suspender,\n      registry,", "      registry,"],
  [
    "src/loop.ts",
    '    toolChoice: typeof toolChoice === "object" ? { name: toolChoice.name.toLowerCase() } : (toolChoice ?? "auto"),',
    '    toolChoice: toolChoice as "auto",',
  ],
  // executor, invocation, tool, history: no gate, no ctx.requestInput, no needsApproval, no pending
  ["src/execute.ts", "await (opts.suspender?.run ?? runOne)(calls[i]!, opts)", "await runOne(calls[i]!, opts)"],
  ["src/execute.ts", "  if (!r.pending) opts.onResult?.(r);", "  opts.onResult?.(r);"],
  ["src/invoke.ts", "    opts.extend?.(ctx, abort, finish);\n", ""],
  ["src/tool.ts", "  if (needsApproval !== undefined) t.needsApproval = needsApproval;\n", ""],
  [
    "src/tool.ts",
    "function build({ name, description, run, timeout, needsApproval }: BuildOptions",
    "function build({ name, description, run, timeout }: BuildOptions",
  ],
  [
    "src/history.ts",
    "          if (res.pending !== undefined) out.pending = pending ? pending(res.pending, fail) : fail(`a waiting call ${NEEDS_SUSPENSION}`);\n",
    "",
  ],
  // client: no tracer (createClient({ tracer: tracing(t) }) is issue 14's too): its check, layer, span and tool wrapping
  ["src/client.ts", '(options.tracer && typeof options.tracer.attach !== "function") || (options.compaction', "(options.compaction"],
  ["src/client.ts", "  const traces = options.tracer?.attach(model);\n  if (traces) model = traces.provider;\n", ""],
  ["src/client.ts", "    traces ? traces.run(() => runOnce(prompt, opts, call)) : runOnce(prompt, opts, call);", "    runOnce(prompt, opts, call);"],
  ["src/client.ts", "createRegistry(traces ? traces.tools(tools) : tools)", "createRegistry(tools)"],
  // adapters: toolChoice as 0.1 had it (auto, and none for the final tools-off call)
  [
    "adapters/claude/encode.ts",
    '  if (typeof choice === "object") return { type: "tool", name: choice.name };\n  if (choice === "none" || choice === "required") return { type: choice === "none" ? "none" : "any" };',
    '  if (choice === "none") return { type: "none" };',
  ],
  [
    "adapters/openai/chat-encode.ts",
    '    if (choice !== undefined && choice !== "auto") {\n      body.tool_choice = typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };\n    }',
    '    if (choice === "none") body.tool_choice = choice;',
  ],
  [
    "adapters/openai/responses-encode.ts",
    '    if (choice !== undefined && choice !== "auto") body.tool_choice = typeof choice === "string" ? choice : { type: "function", name: choice.name };',
    '    if (choice === "none") body.tool_choice = choice;',
  ],
  [
    "adapters/gemini/encode.ts",
    '  if (typeof choice === "object") return { mode: "ANY", allowedFunctionNames: [choice.name] };\n  if (choice === "none" || choice === "required") return { mode: choice === "none" ? "NONE" : "ANY" };',
    '  if (choice === "none") return { mode: "NONE" };',
  ],
];

const AGENTS = ["anthropic", "responses", "chat", "compatible", "gemini"];
const git = (...args) => execFileSync("git", args, { cwd: repoRoot, encoding: "utf8" });

const dir = mkdtempSync(join(tmpdir(), "toolloop-without-steps-"));
try {
  git("worktree", "add", "--detach", dir, "HEAD");
  symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"));
  // The sources as they are now (uncommitted changes too), so both builds are of the same code.
  for (const d of ["src", "adapters"]) cpSync(join(repoRoot, d), join(dir, d), { recursive: true });
  for (const [file, from, to] of EDITS) {
    const path = join(dir, file);
    const src = readFileSync(path, "utf8");
    const n = src.split(from).length - 1;
    if (n !== 1) throw new Error(`${file}: the edit starting ${JSON.stringify(from.slice(0, 60))} matches ${n} times; update EDITS`);
    writeFileSync(path, src.replace(from, to));
  }
  const sizes = async (root) => {
    const { bundleSize } = await import(join(root, "bench/lib/bundle.mjs"));
    const out = {};
    for (const a of AGENTS) out[a] = await bundleSize(`./agents/toolloop-${a}.mjs`);
    return out;
  };
  const withFeatures = await sizes(repoRoot);
  const without = await sizes(dir);
  // The gzip difference also moves by ~10 B with unrelated code (what the compressor finds to
  // match shifts), so the minified difference is printed beside it.
  console.log("| minimal agent | gzip | without suspension and step control | what they add | minified, added |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const a of AGENTS) {
    const d = withFeatures[a].gzip - without[a].gzip;
    const m = withFeatures[a].minified - without[a].minified;
    console.log(
      `| toolloop-${a} | ${withFeatures[a].gzip} B | ${without[a].gzip} B | ${d} B (${(d / 1024).toFixed(2)} KiB)${d > 512 ? " — over 0.5 KiB" : ""} | ${m} B |`,
    );
  }
} finally {
  if (process.env.KEEP) console.log(`kept ${dir} (git worktree remove --force ${dir})`);
  else
    try {
      git("worktree", "remove", "--force", dir);
    } catch {
      rmSync(dir, { recursive: true, force: true });
    }
}
