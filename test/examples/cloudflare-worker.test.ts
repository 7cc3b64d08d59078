// examples/cloudflare-worker: the worker bundled as wrangler would, served by workerd
// (Miniflare) with its Durable Object binding, talking to a local Claude mock.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bundle, root, startWorker } from "../support/runtimes.js";
import { startClaudeMock, type ClaudeMock, type MockTurn } from "../mock/claude.js";
import { parseSSE } from "./helpers.js";

let mock: ClaudeMock;
/** The model's next turns; each test queues its own. An empty queue makes the mock answer 500. */
const turns: MockTurn[] = [];
let worker: Awaited<ReturnType<typeof startWorker>>;

/** The parts of wrangler.toml the test must agree with (a few lines of TOML, read by pattern). */
function wranglerConfig() {
  const toml = readFileSync(join(root, "examples/cloudflare-worker/wrangler.toml"), "utf8");
  const value = (key: string, text = toml) => new RegExp(`^${key}\\s*=\\s*"([^"]+)"`, "m").exec(text)?.[1];
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1] ?? "";
  return {
    main: value("main"),
    compatibilityDate: value("compatibility_date"),
    compatibilityFlags: [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]!),
    binding: value("name", toml.slice(toml.indexOf("[[durable_objects.bindings]]"))),
    className: value("class_name"),
    migratedClasses: /^new_sqlite_classes\s*=\s*\[\s*"([^"]+)"\s*\]/m.exec(toml)?.[1],
  };
}

beforeAll(async () => {
  const config = wranglerConfig();
  expect(config).toMatchObject({ main: "src/worker.ts", binding: "CONVERSATIONS", className: "Conversation", migratedClasses: "Conversation" });
  expect(config.compatibilityFlags).not.toContain("nodejs_compat");
  mock = await startClaudeMock({ apiKey: "sk-ant-test", script: () => turns.shift() as MockTurn });
  const script = await bundle(`examples/cloudflare-worker/${config.main}`, { platform: "neutral", external: ["cloudflare:workers"] });
  worker = await startWorker(script, {
    compatibilityDate: config.compatibilityDate,
    compatibilityFlags: config.compatibilityFlags,
    durableObjects: { [config.binding!]: config.className! },
    bindings: { ANTHROPIC_API_KEY: "sk-ant-test", PROVIDER_BASE_URL: mock.url, MODEL: "claude-test-model" },
  });
}, 60_000);

// A failed test must not leave its unused turns to the next one.
beforeEach(() => {
  turns.length = 0;
});

afterAll(async () => {
  await worker?.dispose();
  await mock?.close();
});

async function chat(conversation: string, message: string) {
  const res = await fetch(new URL(`/chat/${conversation}`, worker.url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  return parseSSE(await res.text());
}

/** The run's final event, which must be `finish` (the whole stream is shown if not). */
function finish(events: { event: string; data: any }[]) {
  const last = events.at(-1);
  expect(last?.event, JSON.stringify(events.filter((e) => e.event !== "text-delta"))).toBe("finish");
  return last!.data;
}

/** The text of each message of a recorded Anthropic request, for comparing conversations. */
function transcript(body: { messages: { role: string; content: { type: string; text?: string; name?: string }[] }[] }): string[] {
  return body.messages.flatMap((m) =>
    m.content.map((b) => `${m.role}:${b.type === "text" ? b.text : b.type === "tool_use" ? `tool_use ${b.name}` : b.type}`),
  );
}

describe("Cloudflare Worker example in workerd", () => {
  it("streams a run as server-sent events, tool call included", async () => {
    turns.push(
      { text: "Let me look at the clock.", toolCalls: [{ name: "current_time", input: { timeZone: "UTC" } }] },
      { text: "Nice to meet you, Ada. Noted the time." },
    );
    const events = await chat("ada", "Hi, I am Ada. What time is it in UTC?");
    const done = finish(events);
    const types = events.map((e) => e.event);
    expect(types).toContain("text-delta");
    expect(types).not.toContain("error");
    const call = events.find((e) => e.event === "tool-call")!;
    expect(call.data).toMatchObject({ name: "current_time", input: { timeZone: "UTC" } });
    const result = events.find((e) => e.event === "tool-result")!;
    expect(result.data.isError).toBe(false);
    expect(result.data.output).toMatch(/\b20\d\d\b.*UTC/); // a real date from the tool, in UTC
    expect(events.filter((e) => e.event === "text-delta").map((e) => e.data.text).join("")).toContain("Nice to meet you, Ada.");
    expect(done).toMatchObject({ text: "Nice to meet you, Ada. Noted the time.", steps: 2, toolCalls: 1 });
  });

  it("a second request to the same conversation carries the first one's history", async () => {
    turns.push({ text: "Your name is Ada." });
    const before = mock.requests.length;
    const events = await chat("ada", "What is my name?");
    expect(finish(events).text).toBe("Your name is Ada.");
    expect(mock.requests.length).toBe(before + 1);
    expect(transcript(mock.requests.at(-1)!.body)).toEqual([
      "user:Hi, I am Ada. What time is it in UTC?",
      "assistant:Let me look at the clock.",
      "assistant:tool_use current_time",
      "user:tool_result",
      "assistant:Nice to meet you, Ada. Noted the time.",
      "user:What is my name?",
    ]);
    // and the Durable Object's storage holds the whole conversation in the neutral format
    const history = (await (await fetch(new URL("/chat/ada", worker.url))).json()) as { role: string }[];
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant"]);
  });

  it("another conversation id starts fresh", async () => {
    turns.push({ text: "Hello! I do not know your name yet." });
    const events = await chat("bob", "What is my name?");
    expect(finish(events).text).toBe("Hello! I do not know your name yet.");
    expect(transcript(mock.requests.at(-1)!.body)).toEqual(["user:What is my name?"]);
  });

  it("a provider failure arrives as an error event and leaves the conversation usable", async () => {
    // No turn queued: the mock answers 500 (with x-should-retry: false).
    const events = await chat("carol", "Hello?");
    expect(events.at(-1)!.event).toBe("error");
    expect(events.at(-1)!.data.code).toBe("provider_error");
    turns.push({ text: "Sorry about that. Hello!" });
    const retry = await chat("carol", "Hello again?");
    expect(finish(retry).text).toBe("Sorry about that. Hello!");
    expect(transcript(mock.requests.at(-1)!.body)).toEqual(["user:Hello?", "user:Hello again?"]);
  });

  it("rejects a request without a message and unknown paths", async () => {
    const bad = await fetch(new URL("/chat/ada", worker.url), { method: "POST", body: "{}" });
    expect(bad.status).toBe(400);
    expect((await fetch(new URL("/elsewhere", worker.url))).status).toBe(404);
  });
});

describe("Cloudflare Worker example without a key", () => {
  it("runs offline: a scripted run that calls the real current_time tool and says it is offline", async () => {
    const config = wranglerConfig();
    const script = await bundle(`examples/cloudflare-worker/${config.main}`, { platform: "neutral", external: ["cloudflare:workers"] });
    const offline = await startWorker(script, {
      compatibilityDate: config.compatibilityDate,
      compatibilityFlags: config.compatibilityFlags,
      durableObjects: { [config.binding!]: config.className! },
      bindings: {},
    });
    try {
      const res = await fetch(new URL("/chat/offline", offline.url), { method: "POST", body: JSON.stringify({ message: "What time is it?" }) });
      const events = parseSSE(await res.text());
      const done = events.at(-1)!;
      expect(done.event, JSON.stringify(events)).toBe("finish");
      expect(events.find((e) => e.event === "tool-call")!.data).toMatchObject({ name: "current_time", input: { timeZone: "UTC" } });
      expect(events.find((e) => e.event === "tool-result")!.data.output).toMatch(/\b20\d\d\b.*UTC/);
      expect(events.filter((e) => e.event === "text-delta").map((e) => e.data.text).join("")).toMatch(/^Offline mode/);
      expect(done.data.text).toMatch(/^It is .*20\d\d.*\(UTC\)\. Set ANTHROPIC_API_KEY or OPENAI_API_KEY/);
    } finally {
      await offline.dispose();
    }
  }, 60_000);
});
