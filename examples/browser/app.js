// toolloop in a web page. The tools run here, in the page: they read the DOM, use
// localStorage, calculate, and draw a chart whose PNG goes back to the model as an image.
// One tool is answered by the person at the page: `ask_user` is an external tool, so the run
// suspends, the page shows the question, and a click resumes the run with the answer.
// Only the model calls leave the page, to a proxy that adds the API key (the default) or,
// for a quick local try, to the vendor with your own key.
//
// Settings come from the form or the query string: ?baseURL=...&model=...&provider=claude|openai|offline
// "offline" (what serve.mjs opens when it has no key) is a scripted stand-in for a model that
// drives the same tools, so the page works before any key exists.

import { createClient, externalTool, suspension, tool, toolOutput } from "toolloop";
import { claude } from "toolloop/claude";
import { openai } from "toolloop/openai";
import { scriptedProvider } from "toolloop/testing";
import * as v from "valibot";
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

const CHART_INPUT = v.object({
  title: v.string(),
  bars: v.pipe(v.array(v.object({ label: v.string(), value: v.number() })), v.minLength(1), v.maxLength(12)),
});

/**
 * Draws a bar chart on the page's canvas and hands the model the PNG: toolOutput() makes the
 * result media, which each adapter sends as the provider's own image block in the tool result.
 */
const drawChart = tool({
  name: "draw_chart",
  description: "Draws a bar chart on the page (visible to the user) and returns it to you as a PNG image, with a one-line summary.",
  input: CHART_INPUT,
  run: ({ title, bars }) => {
    const canvas = $("#chart");
    drawBarChart(canvas, title, bars);
    const data = canvas.toDataURL("image/png").slice("data:image/png;base64,".length);
    return toolOutput([
      { type: "text", text: `Bar chart "${title}" (${canvas.width}x${canvas.height} px): ${bars.map((b) => `${b.label} ${b.value}`).join(", ")}` },
      { type: "image", mediaType: "image/png", data },
    ]);
  },
});

function drawBarChart(canvas, title, bars) {
  const g = canvas.getContext("2d");
  const { width, height } = canvas;
  g.fillStyle = "#fff";
  g.fillRect(0, 0, width, height);
  g.fillStyle = "#1d2330";
  g.font = "bold 15px system-ui, sans-serif";
  g.fillText(title, 12, 22);
  const max = Math.max(...bars.map((b) => b.value), 0) || 1;
  const top = 44;
  const bottom = height - 30;
  const slot = (width - 24) / bars.length;
  g.textAlign = "center";
  g.font = "12px system-ui, sans-serif";
  bars.forEach((bar, i) => {
    const h = (Math.max(0, bar.value) / max) * (bottom - top);
    const x = 12 + i * slot + slot * 0.15;
    const w = slot * 0.7;
    g.fillStyle = "#3b6fd8";
    g.fillRect(x, bottom - h, w, h);
    g.fillStyle = "#1d2330";
    g.fillText(String(bar.value), x + w / 2, bottom - h - 5);
    g.fillText(bar.label.slice(0, 20), x + w / 2, height - 10);
  });
  g.textAlign = "start";
  canvas.hidden = false;
}

/**
 * Answered by the person, not by code: the loop never runs an external tool. The run suspends
 * with the call pending; the page shows the question and resumes with { callId, output }.
 */
const askUser = externalTool({
  name: "ask_user",
  description: "Asks the person using this page a question with 2 to 6 answers to pick from; they answer by clicking one. Use it when you need their choice.",
  input: v.object({ question: v.string(), options: v.pipe(v.array(v.string()), v.minLength(2), v.maxLength(6)) }),
});

/** The order table's lines as chart bars (quantity × price), read from the page. */
function orderLines() {
  return [...document.querySelectorAll("#order tbody tr")].map((row) => {
    const [item, qty, price] = [...row.cells].map((c) => c.textContent.trim());
    return { label: item, value: Number.parseFloat((Number(qty) * Number(price)).toFixed(2)) };
  });
}

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
  if (/\bchart\b/i.test(message)) {
    return scriptedProvider([
      {
        text: "Offline mode: no model is called. Drawing your order.",
        toolCalls: [{ name: "draw_chart", arguments: { title: "Your order by line (EUR)", bars: orderLines() } }],
      },
      (request) => {
        const [result] = request.messages.at(-1).results;
        const image = result.content?.find((p) => p.type === "image");
        return `(Offline, scripted.) ${result.output.split("\n")[0]}. The model got it as a ${image?.mediaType ?? "missing"} image.`;
      },
    ]);
  }
  if (/\bdeliver/i.test(message)) {
    return scriptedProvider([
      {
        text: "Offline mode: no model is called. One question first.",
        toolCalls: [{ name: "ask_user", arguments: { question: "When should we deliver?", options: ["Tuesday morning", "Friday afternoon"] } }],
      },
      (request) => `(Offline, scripted.) Delivery is booked for ${request.messages.at(-1).results[0].output}.`,
    ]);
  }
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

/** An image a tool returned, shown in the conversation as the model got it. */
function addImage(part) {
  const img = document.createElement("img");
  img.src = part.data ? `data:${part.mediaType};base64,${part.data}` : part.url;
  img.alt = "image returned by a tool";
  addLine("tool image", "").append(img);
}

/**
 * The run waits for the person: each ask_user call becomes a question with one button per
 * answer. Once every question has an answer, the run resumes with them as decisions.
 */
function askQuestions(pending) {
  const answers = new Map();
  for (const call of pending) {
    const { question, options } = call.input ?? {};
    const li = addLine("question", typeof question === "string" ? question : `${call.name} waits for an answer`);
    const choices = Array.isArray(options) && options.length ? options.map(String) : ["Yes", "No"];
    for (const choice of choices) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = choice;
      button.addEventListener("click", () => {
        for (const b of li.querySelectorAll("button")) b.disabled = true;
        button.classList.add("chosen");
        answers.set(call.callId, choice);
        if (answers.size === pending.length) {
          drive(() => turn(undefined, { decisions: [...answers].map(([callId, output]) => ({ callId, output })) }));
        }
      });
      li.append(button);
    }
  }
}

let client;
let clientKey;

/** Starts a turn with a new message (a new client when the connection settings changed). */
function send(message) {
  const s = settings();
  // A new connection starts a new client but keeps the conversation.
  // The offline script is one run long: a new one for each message.
  const key = s.provider === "offline" ? Symbol() : JSON.stringify(s);
  if (key !== clientKey) {
    client = createClient({
      provider: makeProvider(s, message),
      history: client?.history,
      tools: [readPageText, queryElements, storageGet, storageSet, calculator, drawChart, askUser],
      parallelTools: true,
      // ask_user runs in this page: the run waits for its answer (an external tool).
      suspension: suspension({ unsigned: true }), // loop, history and decisions all live in this page: a secret here would guard nothing
      systemPrompt:
        "You help the user with the web page they are on. Use the tools to read it; use calculate for arithmetic, draw_chart to show numbers, ask_user when you need the user to choose.",
    });
    clientKey = key;
  }
  addLine("user", message);
  // A new message instead of answers cancels open questions (the loop answers them "cancelled").
  for (const b of document.querySelectorAll("#transcript .question button")) b.disabled = true;
  return turn(message);
}

/** Streams one turn (a message, or decisions) into the transcript; resolves with the calls that wait. */
async function turn(message, options) {
  let answer;
  let pending = [];
  for await (const event of client.stream(message, options)) {
    if (event.type === "text-delta") {
      answer ??= addLine("assistant", "");
      answer.textContent += event.text;
    } else if (event.type === "tool-call") {
      answer = undefined; // text after the tools goes in a new bubble
      addLine("tool", `${event.name}(${event.arguments})`);
    } else if (event.type === "tool-result") {
      addLine("tool", `→ ${event.output}`);
      for (const part of event.content ?? []) if (part.type === "image") addImage(part);
    } else if (event.type === "suspended") {
      pending = event.pending;
    } else if (event.type === "finish" && event.text) {
      // The answer bubble holds exactly the final text (providers that do not stream text still show it).
      answer ??= addLine("assistant", "");
      answer.textContent = event.text;
      // A suspended run's text is what the model said before its question, not the answer.
      if (event.status === "done") answer.classList.add("final");
    }
  }
  return pending;
}

/** Runs a turn with the page's busy state; a turn that suspends leaves the page waiting for clicks. */
async function drive(start) {
  document.body.dataset.state = "running";
  $("#send").disabled = true;
  try {
    const pending = await start();
    if (pending.length) {
      askQuestions(pending);
      document.body.dataset.state = "waiting";
    } else document.body.dataset.state = "done";
    return true;
  } catch (err) {
    addLine("error", `${err.name}: ${err.message}`);
    document.body.dataset.state = "error";
    return false;
  } finally {
    $("#send").disabled = false;
  }
}

$("#ask").addEventListener("submit", async (e) => {
  e.preventDefault();
  const message = $("#message").value.trim();
  if (!message || document.body.dataset.state === "running") return;
  if (await drive(() => send(message))) $("#message").value = "";
});

applyQuery();
document.body.dataset.state = "ready";
