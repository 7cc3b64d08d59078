// toolloop in a web page. The tools run here, in the page: they read the DOM, use
// localStorage and calculate. Only the model calls leave the page, to a proxy that adds
// the API key (the default) or, for a quick local try, to the vendor with your own key.
//
// Settings come from the form or the query string: ?baseURL=...&model=...&provider=claude|openai|offline
// "offline" (what serve.mjs opens when it has no key) is a scripted stand-in for a model that
// drives the same tools, so the page works before any key exists.
import * as v from "valibot";
import { createClient, tool } from "toolloop";
import { claude } from "toolloop/claude";
import { openai } from "toolloop/openai";
import { scriptedProvider } from "toolloop/testing";
import { calculate } from "./calculator.js";

const $ = (selector) => document.querySelector(selector);
const STORAGE_PREFIX = "toolloop-demo:";

const readPageText = tool({
  name: "read_page_text",
  description: "Reads the visible text of the first element matching a CSS selector (default: the whole page).",
  input: v.object({ selector: v.optional(v.string(), "main") }),
  run: ({ selector }) => {
    const el = document.querySelector(selector);
    if (!el) throw new Error(`nothing matches ${selector}`);
    return el.innerText.slice(0, 4000);
  },
});

const queryElements = tool({
  name: "query_elements",
  description: "Lists the elements matching a CSS selector: tag, id, classes and text (at most 20).",
  input: v.object({ selector: v.string() }),
  run: ({ selector }) =>
    [...document.querySelectorAll(selector)].slice(0, 20).map((el) => ({
      tag: el.tagName.toLowerCase(),
      id: el.id || undefined,
      classes: el.className || undefined,
      text: el.innerText?.trim().slice(0, 200),
    })),
});

const storageGet = tool({
  name: "storage_get",
  description: "Reads a value this assistant saved earlier in the browser's localStorage (null when absent).",
  input: v.object({ key: v.string() }),
  run: ({ key }) => ({ key, value: localStorage.getItem(STORAGE_PREFIX + key) }),
});

const storageSet = tool({
  name: "storage_set",
  description: "Saves a string in the browser's localStorage so it is remembered across visits.",
  input: v.object({ key: v.string(), value: v.string() }),
  run: ({ key, value }) => {
    localStorage.setItem(STORAGE_PREFIX + key, value);
    return { saved: key };
  },
});

const calculator = tool({
  name: "calculate",
  description: "Evaluates an arithmetic expression: numbers, + - * / % ^ and parentheses.",
  input: v.object({ expression: v.string() }),
  run: ({ expression }) => ({ expression, result: calculate(expression) }),
});

/** The query string fills the form once, at load; from then on the form is what is used. */
function applyQuery() {
  const query = new URLSearchParams(location.search);
  for (const name of ["provider", "baseURL", "model"]) {
    if (query.has(name)) $(`#${name}`).value = query.get(name);
  }
}

function settings() {
  const provider = $("#provider").value;
  const apiKey = $("#apiKey").value.trim();
  // Empty base URL: the vendor's API when a key was typed, else the proxy path serve.mjs provides.
  const typed = $("#baseURL").value.trim() || (apiKey ? "" : `/api/${provider}/v1`);
  return {
    provider,
    // Relative proxy paths are resolved against the page.
    baseURL: typed ? new URL(typed, location.href).href.replace(/\/$/, "") : undefined,
    model: $("#model").value.trim() || (provider === "claude" ? "claude-sonnet-4-5" : "gpt-5-mini"),
    apiKey,
  };
}

/**
 * Offline: a fixed script (toolloop/testing) that reads the page, adds up what the user asked
 * about with the calculator (an expression in the message, else 6*7) and answers from the results.
 */
function offlineProvider(message) {
  const expression = /[\d.]+(?:\s*[-+*/%^]\s*[\d.(]+[\d.)]*)+/.exec(message)?.[0] ?? "6*7";
  return scriptedProvider([
    {
      text: "Offline mode: no model is called, a script drives the page's tools.",
      toolCalls: [
        { name: "read_page_text", arguments: { selector: "h1" } },
        { name: "calculate", arguments: { expression } },
      ],
    },
    (request) => {
      const [heading, sum] = request.messages.at(-1).results.map((r) => r.output);
      const { result } = JSON.parse(sum);
      return `(Offline, scripted.) The page's heading is "${heading}", and ${expression} = ${result}. Choose Claude or OpenAI in "Connection" to ask a real model.`;
    },
  ]);
}

function makeProvider({ provider, baseURL, model, apiKey }, message) {
  if (provider === "offline") return offlineProvider(message);
  // Behind a proxy the page holds no key; a key typed here is the user's own, on their machine.
  const options = { model, ...(baseURL && { baseURL }), ...(apiKey && { apiKey, dangerouslyAllowBrowser: true }) };
  return provider === "openai" ? openai(options) : claude(options);
}

function addLine(kind, text) {
  const li = document.createElement("li");
  li.className = kind;
  li.textContent = text;
  $("#transcript").append(li);
  li.scrollIntoView({ block: "nearest" });
  return li;
}

let client;
let clientKey;

async function send(message) {
  const s = settings();
  // A new connection starts a new client but keeps the conversation.
  // The offline script is one run long: a new one for each message.
  const key = s.provider === "offline" ? Symbol() : JSON.stringify(s);
  if (key !== clientKey) {
    client = createClient({
      provider: makeProvider(s, message),
      history: client?.history,
      tools: [readPageText, queryElements, storageGet, storageSet, calculator],
      parallelTools: true,
      systemPrompt: "You help the user with the web page they are on. Use the tools to read it; use calculate for arithmetic.",
    });
    clientKey = key;
  }
  addLine("user", message);
  let answer;
  for await (const event of client.stream(message)) {
    if (event.type === "text-delta") {
      answer ??= addLine("assistant", "");
      answer.textContent += event.text;
    } else if (event.type === "tool-call") {
      answer = undefined; // text after the tools goes in a new bubble
      addLine("tool", `${event.name}(${event.arguments})`);
    } else if (event.type === "tool-result") {
      addLine("tool", `→ ${event.output}`);
    } else if (event.type === "finish" && event.text) {
      // The answer bubble holds exactly the final text (providers that do not stream text still show it).
      answer ??= addLine("assistant", "");
      answer.textContent = event.text;
      answer.classList.add("final");
    }
  }
}

$("#ask").addEventListener("submit", async (e) => {
  e.preventDefault();
  const message = $("#message").value.trim();
  if (!message || document.body.dataset.state === "running") return;
  document.body.dataset.state = "running";
  $("#send").disabled = true;
  try {
    await send(message);
    $("#message").value = "";
    document.body.dataset.state = "done";
  } catch (err) {
    addLine("error", `${err.name}: ${err.message}`);
    document.body.dataset.state = "error";
  } finally {
    $("#send").disabled = false;
  }
});

applyQuery();
document.body.dataset.state = "ready";
