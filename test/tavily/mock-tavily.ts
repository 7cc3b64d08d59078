// A local stand-in for Tavily's REST API (POST /search), faithful to the documented shapes:
// Bearer auth, a JSON body with `query` and the search options, and the response
// {query, answer, images, results:[{title,url,content,score,raw_content}], response_time,
// request_id}. Errors use Tavily's {"detail":{"error":"..."}} body.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedSearch {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

/** What the mock does for one request; the queue's last entry repeats. */
export type MockReply =
  | { kind: "ok"; answer?: string | null; results?: MockResult[] }
  | { kind: "status"; status: number; detail: string; headers?: Record<string, string> }
  | { kind: "hang" };

export interface MockResult {
  title: string;
  url: string;
  content: string;
  score: number;
  raw_content?: string | null;
  published_date?: string;
}

export const DEFAULT_RESULTS: MockResult[] = [
  {
    title: "Eiffel Tower - Wikipedia",
    url: "https://en.wikipedia.org/wiki/Eiffel_Tower",
    content: "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is 330 metres tall.",
    score: 0.98123,
    raw_content: "<html>full page text that must never reach the model</html>",
  },
  {
    title: "Eiffel Tower facts",
    url: "https://www.toureiffel.paris/en/the-monument/key-figures",
    content: "Height: 330 m. \n\n  Weight: 10,100 tonnes.",
    score: 0.87456,
    raw_content: null,
  },
];

export interface MockTavily {
  baseURL: string;
  requests: RecordedSearch[];
  /** Requests whose connection closed before an answer (aborted by the client). */
  closedEarly: number;
  close(): Promise<void>;
}

export async function startMockTavily(opts: { apiKey: string; replies?: MockReply[] }): Promise<MockTavily> {
  const replies = opts.replies ?? [{ kind: "ok" }];
  const requests: RecordedSearch[] = [];
  const state = { closedEarly: 0 };
  let served = 0;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };

  const server: Server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (raw += c));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return send(res, 400, { detail: { error: "Request body is not valid JSON." } });
      }
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      if (req.method !== "POST" || req.url !== "/search") return send(res, 404, { detail: "Not Found" });
      if (!String(req.headers["content-type"] ?? "").includes("application/json")) {
        return send(res, 415, { detail: { error: "Content-Type must be application/json." } });
      }
      const auth = req.headers.authorization ?? "";
      if (auth !== `Bearer ${opts.apiKey}`) {
        // Echo what was sent, so a test can prove the tool never shows the key it sent.
        return send(res, 401, { detail: { error: `Unauthorized: missing or invalid API key (got ${auth || "none"}).` } });
      }
      const problem = checkBody(body);
      if (problem) return send(res, 400, { detail: { error: problem } });

      const reply = replies[Math.min(served++, replies.length - 1)]!;
      if (reply.kind === "hang") {
        res.on("close", () => {
          if (!res.writableEnded) state.closedEarly++;
        });
        return; // never answers
      }
      if (reply.kind === "status") return send(res, reply.status, { detail: { error: reply.detail } }, reply.headers);
      const max = typeof body.max_results === "number" ? body.max_results : 5;
      const results = (reply.results ?? DEFAULT_RESULTS).slice(0, max);
      const includeAnswer = body.include_answer === true || body.include_answer === "basic" || body.include_answer === "advanced";
      send(res, 200, {
        query: body.query,
        follow_up_questions: null,
        answer: includeAnswer ? (reply.answer === undefined ? "The Eiffel Tower is 330 metres tall." : reply.answer) : null,
        images: [],
        results: results.map((r) => ({ raw_content: null, ...r })),
        response_time: 1.09,
        request_id: "123e4567-e89b-12d3-a456-426614174111",
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    get closedEarly() {
      return state.closedEarly;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The request body rules of Tavily's documented schema that the tool could get wrong. */
function checkBody(b: Record<string, unknown>): string | undefined {
  if (typeof b.query !== "string" || b.query.trim() === "") return "Query is missing or empty.";
  if ("api_key" in b) return "the key belongs in the Authorization header";
  if (b.max_results !== undefined && !(Number.isInteger(b.max_results) && (b.max_results as number) >= 0 && (b.max_results as number) <= 20)) {
    return "max_results must be an integer from 0 to 20";
  }
  if (b.search_depth !== undefined && !["basic", "advanced", "fast", "ultra-fast"].includes(b.search_depth as string)) return "Invalid search_depth";
  if (b.topic !== undefined && !["general", "news", "finance"].includes(b.topic as string)) return "Invalid topic";
  if (b.time_range !== undefined && !["day", "week", "month", "year", "d", "w", "m", "y"].includes(b.time_range as string)) return "Invalid time_range";
  if (b.include_answer !== undefined && ![true, false, "basic", "advanced"].includes(b.include_answer as never)) return "Invalid include_answer";
  if (b.include_domains !== undefined && !(Array.isArray(b.include_domains) && b.include_domains.every((d) => typeof d === "string"))) {
    return "include_domains must be a list of strings";
  }
  return undefined;
}
