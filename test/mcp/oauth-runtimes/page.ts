// The page of the Chromium suite, bundled from the built package (dist/). Its config (the MCP
// server's URL and how the user is sent to sign in) is JSON in #config. Two redirect steps:
//   "popup"     a window opened at the authorization URL; /callback.html, where the server sends
//               the user back, posts its own URL to this page and closes
//   "navigate"  the page itself goes to the authorization server; the server sends the user
//               back to this page, which finishes the flow with complete() when it loads
// Tokens, the registration and the flow in flight live in localStorage (webStorageStore).
// #run has the agent use the ticket server; window.report holds what the app saw.
import { oauth, webStorageStore } from "toolloop/mcp";
import { recorder, useTickets } from "./scenario.js";

const config = JSON.parse(document.getElementById("config")!.textContent!) as { mcpUrl: string; mode: "popup" | "navigate" };
const rec = recorder(true);
(globalThis as { report?: unknown }).report = rec.report;

function popup(url: URL): Promise<string> {
  return new Promise((resolve, reject) => {
    const win = window.open(url, "signin", "popup,width=480,height=640");
    if (!win) return reject(new Error("the sign-in window was blocked"));
    addEventListener("message", function back(event: MessageEvent) {
      if (event.origin !== location.origin || event.source !== win || typeof event.data?.callback !== "string") return;
      removeEventListener("message", back);
      resolve(event.data.callback);
    });
  });
}

async function navigate(url: URL): Promise<undefined> {
  location.assign(url);
  return undefined; // the flow ends in complete() when the user is back
}

const auth = oauth({
  redirectUri: config.mode === "popup" ? `${location.origin}/callback.html` : `${location.origin}${location.pathname}`,
  redirect: config.mode === "popup" ? popup : navigate,
  store: webStorageStore(localStorage, `${config.mode}:`),
  clientName: "Tickets page",
  logger: rec.logger,
});

async function main(): Promise<void> {
  if (new URLSearchParams(location.search).has("state")) {
    try {
      await auth.complete(location.href);
    } catch (err) {
      rec.fail(err);
    }
    history.replaceState(null, "", location.pathname); // the code leaves the address bar
  }
  document.getElementById("run")!.addEventListener("click", async () => {
    document.body.dataset.state = "running";
    rec.report.answer = undefined;
    await useTickets(auth, config.mcpUrl, rec);
    document.body.dataset.state = rec.report.answer ? "done" : "failed";
  });
  document.body.dataset.state = "ready";
}

void main();
