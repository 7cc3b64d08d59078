// Serves the browser example and a small proxy that adds the API key, so the key stays on
// this machine's server and never reaches the page:
//
//   ANTHROPIC_API_KEY=... node examples/browser/serve.mjs     (or OPENAI_API_KEY=...)
//   → open http://127.0.0.1:8080/
//
// The page calls /api/claude/v1/... (or /api/openai/v1/...); this server forwards those
// requests to the vendor (ANTHROPIC_BASE_URL / OPENAI_BASE_URL override the upstream) with
// the key added. PORT picks the port (0: any free one). app.js is bundled with esbuild at start.
//
// /durable.html follows a run on the Cloudflare Worker example (examples/cloudflare-worker):
// this server forwards /chat/* to WORKER_URL (default http://127.0.0.1:8787, `wrangler dev`),
// so the page calls its own origin and the Worker needs no CORS.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { build } from "esbuild";

const here = new URL(".", import.meta.url);
const bundleOf = async (file) =>
  (
    await build({
      entryPoints: [new URL(file, here).pathname],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      write: false,
      logLevel: "warning",
    })
  ).outputFiles[0].text;
const [bundle, durableBundle] = await Promise.all([bundleOf("app.js"), bundleOf("durable.js")]);
const html = await readFile(new URL("index.html", here));
const durableHtml = await readFile(new URL("durable.html", here));
const workerURL = (process.env.WORKER_URL || "http://127.0.0.1:8787").replace(/\/+$/, "");

const upstreams = {
  claude: {
    url: process.env.ANTHROPIC_BASE_URL || "https://api.anthropic.com/v1",
    key: process.env.ANTHROPIC_API_KEY,
    keyName: "ANTHROPIC_API_KEY",
    auth: (key) => ({ "x-api-key": key }),
  },
  openai: {
    url: process.env.OPENAI_BASE_URL || "https://api.openai.com/v1",
    key: process.env.OPENAI_API_KEY,
    keyName: "OPENAI_API_KEY",
    auth: (key) => ({ authorization: `Bearer ${key}` }),
  },
};
// Request headers worth forwarding; everything else (cookies, the browser-access header) stays here.
const FORWARD = ["content-type", "accept", "anthropic-version", "anthropic-beta"];

async function proxy(req, res, upstream, rest) {
  if (req.method !== "POST") return res.writeHead(405, { allow: "POST" }).end();
  if (!upstream.key) {
    res.writeHead(500, { "content-type": "application/json" });
    return res.end(JSON.stringify({ error: { type: "proxy_error", message: `${upstream.keyName} is not set on the server` } }));
  }
  const headers = { ...upstream.auth(upstream.key) };
  for (const name of FORWARD) if (req.headers[name]) headers[name] = req.headers[name];
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const abort = new AbortController();
  res.on("close", () => abort.abort()); // the page went away: stop paying for the answer
  try {
    const answer = await fetch(`${upstream.url}/${rest}`, { method: "POST", headers, body: Buffer.concat(chunks), signal: abort.signal });
    const pass = {};
    for (const name of ["content-type", "retry-after", "request-id", "x-request-id"]) {
      const value = answer.headers.get(name);
      if (value) pass[name] = value;
    }
    res.writeHead(answer.status, pass);
    // Streamed through as it arrives, so server-sent events reach the page live.
    if (answer.body) for await (const chunk of answer.body) res.write(chunk);
    res.end();
  } catch (err) {
    if (abort.signal.aborted) return;
    if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { type: "proxy_error", message: `upstream unreachable: ${err.message}` } }));
  }
}

/**
 * Forwards a /chat/* request to the Worker and streams its answer back as it comes. A drop on
 * the Worker's side is passed on as a drop (the page's follow() reconnects), never as a clean
 * end; the page going away closes the Worker request, which does not stop the run there.
 */
async function forwardToWorker(req, res) {
  const headers = {};
  for (const name of ["content-type", "accept", "last-event-id"]) if (req.headers[name]) headers[name] = req.headers[name];
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const abort = new AbortController();
  res.on("close", () => abort.abort());
  let answer;
  try {
    answer = await fetch(workerURL + req.url, {
      method: req.method,
      headers,
      body: ["GET", "HEAD"].includes(req.method) ? undefined : Buffer.concat(chunks),
      signal: abort.signal,
    });
  } catch (err) {
    if (abort.signal.aborted) return;
    res.writeHead(502, { "content-type": "application/json" });
    return res.end(JSON.stringify({ error: `the Worker at ${workerURL} is unreachable: ${err.message}` }));
  }
  const pass = { "cache-control": "no-cache" };
  for (const name of ["content-type", "retry-after"]) if (answer.headers.get(name)) pass[name] = answer.headers.get(name);
  res.writeHead(answer.status, pass);
  res.flushHeaders();
  try {
    if (answer.body) for await (const chunk of answer.body) res.write(chunk);
    res.end();
  } catch {
    res.destroy();
  }
}

const offline = !upstreams.claude.key && !upstreams.openai.key;

const server = createServer((req, res) => {
  const path = new URL(req.url, "http://localhost").pathname;
  const api = /^\/api\/(claude|openai)\/v1\/(.+)$/.exec(path);
  if (api) return proxy(req, res, upstreams[api[1]], api[2]);
  if (path.startsWith("/chat/")) return forwardToWorker(req, res);
  if (path === "/durable.html") return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(durableHtml);
  if (path === "/durable.bundle.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(durableBundle);
  // With no key on this server the page starts in its offline (scripted) mode.
  if (path === "/" && !offline) return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
  if (path === "/") {
    const url = new URL(req.url, "http://localhost");
    if (url.searchParams.has("provider")) return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
    return res.writeHead(302, { location: "/?provider=offline" }).end();
  }
  if (path === "/app.bundle.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
  res.writeHead(404).end();
});
server.listen(Number(process.env.PORT ?? 8080), "127.0.0.1", () => {
  const configured = Object.values(upstreams)
    .filter((u) => u.key)
    .map((u) => u.keyName);
  console.log(`Serving the browser example at http://127.0.0.1:${server.address().port}/`);
  console.log(`A durable run on the Worker at ${workerURL} (WORKER_URL), followed: http://127.0.0.1:${server.address().port}/durable.html`);
  console.log(
    configured.length
      ? `Proxying with ${configured.join(", ")}.`
      : "No ANTHROPIC_API_KEY or OPENAI_API_KEY set: the page opens in offline mode (a scripted stand-in drives its tools).",
  );
});
