// What the CLI is given: its command line and the conversation as one prompt.
import { UnsupportedContentError } from "../../src/base/index.js";
import type { ContentPart, Message, ModelRequest } from "../../src/conversation/index.js";
import type { ClaudeLocalOptions } from "./options.js";

export function cliArgs(options: ClaudeLocalOptions, request: ModelRequest, streaming: boolean): string[] {
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
  return "Answer with only a JSON value that matches the JSON Schema below: no prose before or after it " + `and no code fences.\n${JSON.stringify(schema)}`;
}

/**
 * The conversation as one prompt: earlier turns in a tagged transcript, then the latest
 * user message(s) as the request itself. A single user message is sent as it is.
 */
export function transcript(messages: readonly Message[]): string {
  let split = messages.length;
  while (split > 0 && messages[split - 1]!.role === "user") split--;
  const current = messages
    .slice(split)
    .map((m) => textOf((m as { content: string | ContentPart[] }).content))
    .filter((c) => c.trim() !== "")
    .join("\n\n");
  const earlier = messages.slice(0, split);
  if (earlier.length === 0) return current;
  const turns = earlier.map(renderTurn).filter((t) => t !== "");
  const history = "Earlier turns of this conversation, oldest first:\n<conversation_history>\n" + turns.join("\n") + "\n</conversation_history>";
  return `${history}\n\n${current || "Continue the conversation from where it left off."}`;
}

function renderTurn(m: Message): string {
  switch (m.role) {
    case "user": {
      const text = textOf(m.content);
      return text.trim() ? `<user>\n${text}\n</user>` : "";
    }
    case "assistant": {
      const calls = (m.toolCalls ?? []).map((c) => `<tool_call name="${c.name}">${c.arguments || "{}"}</tool_call>`);
      const body = [m.content, ...calls].filter((s) => s.trim() !== "").join("\n");
      return body ? `<assistant>\n${body}\n</assistant>` : "";
    }
    case "tool": {
      const results = m.results.map(
        // A tool's media goes as its text rendering (`output`), as every adapter sends a tool part
        // it cannot take, so a history with tool media never gets stuck here.
        (r) =>
          `<tool_result name="${r.name}"${r.isError ? ' is_error="true"' : ""}>${r.output}${r.content?.some((p) => p.type !== "text") ? " (media not sent: the Claude Code CLI takes text only)" : ""}</tool_result>`,
      );
      return `<tool_results>\n${results.join("\n")}\n</tool_results>`;
    }
  }
}

/**
 * The CLI takes one text prompt on stdin: there is no way to hand it an image or a file
 * (a path in the prompt would let it read one from disk, which is not the same request).
 */
function textOf(content: string | readonly ContentPart[]): string {
  if (typeof content === "string") return content;
  return content
    .map((p) => {
      if (p.type === "text") return p.text;
      const what =
        p.type === "file" && p.filename ? `a file part ${p.filename} (${p.mediaType})` : `an ${p.type} part${p.mediaType ? ` (${p.mediaType})` : ""}`;
      throw new UnsupportedContentError("claude-local", what, "the Claude Code CLI takes a text prompt only");
    })
    .join("\n");
}
