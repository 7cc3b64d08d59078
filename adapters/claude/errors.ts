// Anthropic's error bodies: {"type":"error","error":{"type","message"},"request_id"}. The
// request id sits in the body as well as the request-id header (the header wins).
import { readCommonError, type ErrorDetails } from "../../src/http.js";
import { isRecord, nonEmptyString } from "../../src/values.js";

export function readAnthropicError(body: unknown): ErrorDetails {
  const details = readCommonError(body);
  if (isRecord(body)) details.requestId = nonEmptyString(body.request_id);
  return details;
}
