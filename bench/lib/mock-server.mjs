// The mock model: node:http on 127.0.0.1, port 0, answering pre-serialised bodies with no
// latency. It runs in the parent process, so the CPU it spends is never counted against the
// SDK under test (each SDK runs in its own child process).
//
// The scenario is the first path segment of the base URL every SDK is given:
//   http://127.0.0.1:PORT/loop/v1, /text-20000/v1, /args-2000/v1beta, ...
// The provider format comes from the rest of the path, streaming from the body
// ("stream":true) or, for Gemini, from :streamGenerateContent.
import { createServer } from "node:http";
import { loopAnswers, MARK, TOOL_CALLS, TOOL_STEPS, WIRE } from "./wire.mjs";

function formatOf(path) {
  if (path.endsWith("/messages")) return "anthropic";
  if (path.endsWith("/chat/completions")) return "chat";
  if (path.endsWith("/responses")) return "responses";
  if (path.includes(":generateContent") || path.includes(":streamGenerateContent")) return "gemini";
  return undefined;
}

function count(haystack, needle) {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

export async function startMockServer() {
  const loop = loopAnswers();
  const decodeBodies = new Map();
  /** Serialise the body of a decode scenario once (before the clock runs). */
  const decodeAnswer = (format, kind, n) => {
    const key = `${format}:${kind}:${n}`;
    let a = decodeBodies.get(key);
    if (!a) {
      const make = WIRE[format][kind];
      if (!make) return undefined;
      a = make(n);
      decodeBodies.set(key, a);
    }
    return a;
  };
  const stats = { requests: 0, errors: [] };

  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      stats.requests++;
      const body = Buffer.concat(chunks).toString("latin1");
      const url = new URL(req.url, "http://x");
      const [, scenario] = url.pathname.split("/");
      const format = formatOf(url.pathname);
      const stream = format === "gemini" ? url.pathname.includes(":streamGenerateContent") : /"stream"\s*:\s*true/.test(body);
      let answer;
      if (format && scenario === "loop") {
        const step = Math.min(TOOL_STEPS, Math.floor(count(body, MARK) / TOOL_CALLS));
        answer = loop[format][stream ? "sse" : "json"][step];
      } else if (format) {
        const m = /^(text|args)-(\d+)$/.exec(scenario ?? "");
        // A tool result in the body means the SDK went on after the tool call: give it the final answer.
        if (m && body.includes(MARK)) answer = loop[format][stream ? "sse" : "json"][TOOL_STEPS];
        else if (m && stream) answer = decodeAnswer(format, m[1], Number(m[2]));
      }
      if (!answer) {
        stats.errors.push(`${req.method} ${req.url}`);
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { type: "not_found", message: `the mock has no answer for ${req.url}` } }));
        return;
      }
      res.writeHead(200, {
        "content-type": answer.type,
        "content-length": answer.body.length,
        "request-id": "req_bench",
        "x-request-id": "req_bench",
      });
      res.end(answer.body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    stats,
    /** Serialise decode bodies ahead of time, so the first measured run does not wait for it. */
    prepare(format, kind, n) {
      return decodeAnswer(format, kind, n) !== undefined;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
