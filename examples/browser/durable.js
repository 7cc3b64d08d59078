// A durable run, followed from a web page. The agent runs on the server (the Cloudflare Worker
// example, or any server that keeps its HTTP contract); the page only posts the message, follows
// the run's events with follow(), and posts the person's decisions. follow() reconnects with
// Last-Event-ID when the connection drops (a train tunnel, a proxy's timeout, a deploy), so the
// page shows every event once, in order. Closing the page does not stop the run: opened again
// with ?chat=<id>, it rejoins the run in progress, or shows what waits for approval.
//
//   POST /chat/:id {"message"}              → the run's events (409 while a run is in progress)
//   GET  /chat/:id/events + Last-Event-ID   → the events after that id, then the live ones
//   POST /chat/:id/decisions {"decisions"}  → the resumed run's events
//   GET  /chat/:id                          → { status, pending, ... }
//
// ?api=<base URL> points the page at a server on another origin (it must allow CORS, the
// Last-Event-ID header included); by default it calls its own origin, where serve.mjs forwards
// /chat/* to the Worker (WORKER_URL). ?chat=<id> picks the conversation.

import { follow, isToolloopError } from "toolloop";

const $ = (selector) => document.querySelector(selector);
const params = new URLSearchParams(location.search);
const api = (params.get("api") ?? "").replace(/\/+$/, "");
$("#chat").value = params.get("chat") ?? `chat-${crypto.randomUUID().slice(0, 8)}`;
const chatURL = () => `${api}/chat/${encodeURIComponent($("#chat").value.trim())}`;

function setState(state, note) {
  document.body.dataset.state = state;
  $("#send").disabled = state === "running";
  if (note !== undefined) $("#connection").textContent = note;
}

/**
 * follow()'s fetch: each call is a GET of the event stream (the first answer is the POST's own),
 * so the page can say when it (re)connects and from which event.
 */
function countingFetch(url, init) {
  const status = $("#connection");
  status.dataset.connections = String(Number(status.dataset.connections) + 1);
  const after = new Headers(init?.headers).get("last-event-id");
  status.textContent = after === null ? "Connecting to the run…" : `Connection dropped; reconnecting after event ${after}…`;
  return fetch(url, init);
}

/** Follows the run whose first answer is `response` (or, without one, the run in progress) to its end. */
async function followRun(response) {
  setState("running", response ? "Following the run." : "Rejoining the run in progress…");
  $("#answer").textContent = "";
  stepStart = 0;
  $("#error").textContent = "";
  try {
    for await (const event of follow(`${chatURL()}/events`, { response, fetch: countingFetch, retryDelay: 250, maxRetryDelay: 4000 })) {
      $("#connection").textContent = "Following the run.";
      show(event);
    }
  } catch (err) {
    // Someone (another tab, another device) started a run first: follow that one instead.
    if (response && isToolloopError(err, "provider_error") && err.status === 409) return followRun(undefined);
    $("#error").textContent = err.message;
    setState("error", "The run could not be followed.");
  }
}

// Where the text of the step in progress starts in #answer: a run continued after a crash
// (a `recovery` event) sends that step's events again, from the server's record, or asks the
// model again (`restart`), so what the page showed of the step is taken back.
let stepStart = 0;

/** One event: in the log (by id and type), and in the conversation. */
function show({ id, type, data }) {
  const li = document.createElement("li");
  li.dataset.id = String(id);
  li.dataset.type = type;
  li.textContent = `${id} ${type}${summary(type, data)}`;
  $("#events").append(li);
  li.scrollIntoView({ block: "nearest" });
  const answer = $("#answer");
  if (type === "text-delta") answer.textContent += data.text;
  else if (type === "step-finish") stepStart = answer.textContent.length;
  else if (type === "recovery") answer.textContent = answer.textContent.slice(0, stepStart);
  else if (type === "suspended") showApprovals(data.pending);
  else if (type === "finish") setState(data.status === "suspended" ? "waiting" : "done", data.status === "suspended" ? "Waiting for your decision." : "Done.");
  else if (type === "error") {
    $("#error").textContent = `The run failed: ${data.message}`;
    setState("error", "The run ended with an error.");
  }
}

function summary(type, data) {
  if (type === "text-delta") return ` ${JSON.stringify(data.text)}`;
  if (type === "tool-call") return ` ${data.name}(${data.arguments})`;
  if (type === "tool-result") return ` ${data.name} → ${data.output}`;
  return "";
}

/** Approve / Deny per waiting call; the batch goes out when every call has its answer. */
function showApprovals(pending) {
  const list = $("#approvals");
  list.replaceChildren();
  const decisions = new Map();
  for (const call of pending) {
    const li = document.createElement("li");
    li.dataset.callId = call.callId;
    li.append(`${call.name} wants to run with ${JSON.stringify(call.input)}`, document.createElement("br"));
    for (const [label, decision] of [
      ["Approve", { callId: call.callId, approved: true }],
      ["Deny", { callId: call.callId, approved: false, reason: "denied in the browser" }],
    ]) {
      const button = document.createElement("button");
      button.textContent = label;
      button.addEventListener("click", () => {
        for (const b of li.querySelectorAll("button")) b.disabled = true;
        button.classList.add("chosen");
        decisions.set(call.callId, decision);
        if (decisions.size === pending.length) decide([...decisions.values()]);
      });
      li.append(button);
    }
    list.append(li);
  }
}

async function decide(decisions) {
  setState("running", "Sending your decision…");
  let response;
  try {
    response = await fetch(`${chatURL()}/decisions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ decisions }) });
  } catch (err) {
    $("#error").textContent = `The decision was not sent: ${err.message}`;
    return setState("error", "Not connected.");
  }
  await followRun(response);
}

$("#ask").addEventListener("submit", async (e) => {
  e.preventDefault();
  const message = $("#message").value.trim();
  if (!message || document.body.dataset.state === "running") return;
  $("#approvals").replaceChildren();
  setState("running", "Starting the run…");
  let response;
  try {
    response = await fetch(chatURL(), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message }) });
  } catch (err) {
    $("#error").textContent = `The message was not sent: ${err.message}`;
    return setState("error", "Not connected.");
  }
  await followRun(response);
});

/** Opened on a conversation (?chat=): rejoin its run, or show what waits for a decision. */
async function start() {
  if (params.has("chat")) {
    const state = await fetch(chatURL())
      .then((r) => (r.ok ? r.json() : undefined))
      .catch(() => undefined);
    if (state?.status === "running") return followRun(undefined);
    if (state?.pending?.length) {
      showApprovals(state.pending);
      return setState("waiting", "Waiting for your decision.");
    }
  }
  setState("ready", "Not connected.");
}
start();
