// The options of claudeLocal(), apart from the factory so the modules it uses can name
// them without importing it back (no cycle).
export interface ClaudeLocalOptions {
  /** The CLI to run: a name looked up on PATH, or a path. Default "claude". */
  command?: string | undefined;
  /** `--model`: an alias ("sonnet", "opus") or a full model name. Default: the CLI's own. */
  model?: string | undefined;
  /** Working directory of the CLI (its project: CLAUDE.md, settings, files it may read). */
  cwd?: string | undefined;
  /** ms before a request's CLI process is killed and the request fails. Default: none. */
  timeout?: number | undefined;
  /** Variables set for the CLI on top of this process's environment; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** More CLI arguments, added after toolloop's own (e.g. ["--tools", ""] or ["--max-turns", "1"]). */
  extraArgs?: readonly string[] | undefined;
}
