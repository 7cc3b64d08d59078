// A note-keeping agent whose tools are Bun-native file I/O (Bun.write, Bun.file, Bun.Glob):
//
//   bun examples/bun/main.ts [notes-folder] [request]
//
// Notes live in the folder as <name>.md (default: ./notes). With ANTHROPIC_API_KEY or
// OPENAI_API_KEY set it asks that provider (model: TOOLLOOP_MODEL; endpoint:
// TOOLLOOP_BASE_URL); with neither it runs offline against the scripted provider.

import { createClient, type Provider, tool } from "toolloop";
import { scriptedProvider } from "toolloop/testing";
import * as v from "valibot";

const [dir = "notes", ...rest] = Bun.argv.slice(2);
// One plain name per note, so the model cannot write outside the folder.
const noteName = v.pipe(v.string(), v.regex(/^[\w-]{1,64}$/), v.description("Note name: letters, digits, _ or -."));
const pathOf = (name: string) => `${dir}/${name}.md`;

const saveNote = tool({
  name: "save_note",
  description: "Saves (or replaces) a note.",
  input: v.object({ name: noteName, text: v.string() }),
  run: async ({ name, text }) => ({ saved: name, bytes: await Bun.write(pathOf(name), text) }),
});

const readNote = tool({
  name: "read_note",
  description: "Reads a note.",
  input: v.object({ name: noteName }),
  run: async ({ name }) => {
    const file = Bun.file(pathOf(name));
    if (!(await file.exists())) throw new Error(`no note named ${name}`);
    return file.text();
  },
});

const listNotes = tool({
  name: "list_notes",
  description: "Lists the names of all notes.",
  input: v.object({}),
  run: async () => {
    const names: string[] = [];
    for await (const f of new Bun.Glob("*.md").scan({ cwd: dir })) names.push(f.slice(0, -3));
    return names.sort();
  },
});

async function chooseProvider(): Promise<Provider | undefined> {
  const { ANTHROPIC_API_KEY, OPENAI_API_KEY, TOOLLOOP_MODEL: model, TOOLLOOP_BASE_URL: baseURL } = Bun.env;
  if (ANTHROPIC_API_KEY) {
    const { claude } = await import("toolloop/claude");
    return claude({ apiKey: ANTHROPIC_API_KEY, model: model ?? "claude-sonnet-4-5", baseURL });
  }
  if (OPENAI_API_KEY) {
    const { openai } = await import("toolloop/openai");
    return openai({ apiKey: OPENAI_API_KEY, model: model ?? "gpt-5-mini", baseURL });
  }
  return undefined;
}

/** Offline: save a note, list the notes, read it back, answer with what the tools returned. */
function offline(): Provider {
  return scriptedProvider([
    { toolCalls: [{ name: "save_note", arguments: { name: "groceries", text: "eggs, flour, milk" } }] },
    {
      toolCalls: [
        { name: "list_notes", arguments: {} },
        { name: "read_note", arguments: { name: "groceries" } },
      ],
    },
    (r) => {
      const last = r.messages.at(-1);
      const [list, text] = last?.role === "tool" ? last.results.map((x) => x.output) : [];
      return `Saved. Your notes: ${(JSON.parse(list!) as string[]).join(", ")}. "groceries" says: ${text}`;
    },
  ]);
}

let provider = await chooseProvider();
if (!provider) {
  console.log("No provider key found (ANTHROPIC_API_KEY, OPENAI_API_KEY): running offline against the scripted provider.");
  provider = offline();
} else console.log(`Using ${provider.name} (${provider.model}).`);

const client = createClient({
  provider,
  tools: [saveNote, readNote, listNotes],
  systemPrompt: "You keep the user's notes with the note tools.",
});
const request = rest.join(" ") || "Save a note called groceries: eggs, flour, milk. Then show me all my notes.";
for await (const e of client.stream(request)) {
  if (e.type === "tool-call") console.log(`tool call: ${e.name}(${e.arguments})`);
  if (e.type === "finish") console.log(`answer: ${e.text}`);
}
