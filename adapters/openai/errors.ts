// OpenAI's error bodies: {"error":{"type","code","message","param"}}. An exhausted quota is
// a 429 no retry clears: `insufficient_quota` (as type or code) is final, unlike a rate limit.

import { isRecord, labelText } from "../../src/base/index.js";
import { type ErrorDetails, readCommonError } from "../../src/http/index.js";

export function readOpenAIError(body: unknown): ErrorDetails {
  const details = readCommonError(body);
  const e = isRecord(body) && isRecord(body.error) ? body.error : body;
  const code = isRecord(e) ? labelText(e.code) : undefined;
  if (details.type === "insufficient_quota" || code === "insufficient_quota") details.retryable = false;
  return details;
}
