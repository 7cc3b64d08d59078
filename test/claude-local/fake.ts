// Test helpers around the fake Claude Code CLI in test/fixtures/fake-claude.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const FAKE_DIR = fileURLToPath(new URL("../fixtures/fake-claude/", import.meta.url));
export const FAKE_CLAUDE = join(FAKE_DIR, "claude");
const TMP = fileURLToPath(new URL("../../.tmp/local-tavily/", import.meta.url));

export interface Invocation {
  argv: string[];
  stdin: string;
  cwd: string;
  pid: number;
  env: Record<string, string>;
}

export interface FakeSession {
  /** Environment for claudeLocal({ env }) that drives the fake. */
  env: Record<string, string>;
  dir: string;
  /** Every invocation so far, in order. */
  invocations(): Invocation[];
}

/** A fresh scripted session: replies are used in order, one per CLI invocation. */
export function fakeSession(replies?: unknown[]): FakeSession {
  mkdirSync(TMP, { recursive: true });
  const dir = mkdtempSync(join(TMP, "claude-"));
  const record = join(dir, "record.jsonl");
  const env: Record<string, string> = { FAKE_CLAUDE_RECORD: record };
  if (replies) {
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify(replies));
    env.FAKE_CLAUDE_SCRIPT = script;
  } else {
    env.FAKE_CLAUDE_ECHO = "1";
  }
  return {
    env,
    dir,
    invocations() {
      let text = "";
      try {
        text = readFileSync(record, "utf8");
      } catch {
        return [];
      }
      // Only complete lines: the fake may be writing one right now.
      return text
        .split("\n")
        .slice(0, -1)
        .map((l) => JSON.parse(l) as Invocation);
    },
  };
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once `check` is true (polling; for "the fake has started" only, never timing). */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}
