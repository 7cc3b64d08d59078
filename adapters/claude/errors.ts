// Anthropic's error bodies: {"type":"error","error":{"type","message"},"request_id"}. The
// request id sits in the body as well as the request-id header (the header wins).

import { isRecord, nonEmptyString } from "../../src/base/index.js";
import { type ErrorDetails, readCommonError } from "../../src/http/index.js";

export function readAnthropicError(body: unknown): ErrorDetails {
  const details = readCommonError(body);
  if (isRecord(body)) details.requestId = nonEmptyString(body.request_id);
  return details;
}
