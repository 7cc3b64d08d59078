// The claude-local stream-json decoder alone (no process): one NDJSON line per push(),
// finish() after the run ended. Split at every boundary, it gives the same deltas and answer.
import { describe, expect, it } from "vitest";
import { createCliStreamDecoder, splitLines } from "../../adapters/claude-local/output.js";
import type { Delta } from "../../src/conversation/provider.js";

const run = { run: { code: 0, signal: null, stdout: "", stderr: "" }, command: "claude" };
const delta = (text: string, parent?: string) =>
  JSON.stringify({
    type: "stream_event",
    ...(parent ? { parent_tool_use_id: parent } : {}),
    event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
  });
const STREAM = [
  JSON.stringify({ type: "system", subtype: "init" }),
  delta("Hel"),
  delta("sub-agent text", "toolu_1"),
  delta("lo ✓"),
  "not json at all",
  JSON.stringify({
    type: "result",
    subtype: "success",
    result: "Hello ✓",
    stop_reason: "end_turn",
    usage: { input_tokens: 2, cache_read_input_tokens: 5, output_tokens: 3 },
  }),
].join("\n");

function decode(chunks: string[]) {
  const deltas: Delta[] = [];
  const d = createCliStreamDecoder(
    (x) => deltas.push(x),
    () => run,
  );
  const lines = splitLines((l) => d.push(l));
  for (const c of chunks) lines.push(c);
  lines.end();
  return { response: d.finish(), deltas };
}

describe("claude-local stream decoder", () => {
  it("text deltas of the main agent only, then the result line as the response", () => {
    const { response, deltas } = decode([STREAM]);
    expect(deltas).toEqual([
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo ✓" },
    ]);
    expect(response).toEqual({ text: "Hello ✓", toolCalls: [], finishReason: "stop", usage: { inputTokens: 7, outputTokens: 3, cacheReadTokens: 5 } });
  });

  it("the same result cut at every character boundary", () => {
    const whole = decode([STREAM]);
    for (let cut = 1; cut < STREAM.length; cut++) expect(decode([STREAM.slice(0, cut), STREAM.slice(cut)])).toEqual(whole);
  });

  it("no partial messages: the answer still arrives as one delta", () => {
    const { deltas } = decode([JSON.stringify({ type: "result", subtype: "success", result: "all at once" })]);
    expect(deltas).toEqual([{ type: "text-delta", text: "all at once" }]);
  });

  it("no result line: finish() is a bad_output ClaudeCliError", () => {
    expect(() => decode([delta("x")])).toThrow(/printed no result JSON/);
  });
});
