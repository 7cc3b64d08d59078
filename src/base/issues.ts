import type { ValidationIssue } from "./errors.js";

/** Validation issues as one line, "path: message; path: message", for errors and the model. */
export function formatIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join("; ");
}
