// Google's error bodies: {"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message",
// "details":[...]}}, sometimes wrapped in a one-element array. Google says when to retry in
// the body, not a header: a google.rpc.RetryInfo among the details.

import { isRecord } from "../../src/base/index.js";
import { type ErrorDetails, readCommonError } from "../../src/http/index.js";

export function readGoogleError(body: unknown): ErrorDetails {
  const obj = Array.isArray(body) ? (body[0] as unknown) : body;
  const details = readCommonError(obj);
  const e = isRecord(obj) && isRecord(obj.error) ? obj.error : obj;
  if (isRecord(e)) details.retryDelay = retryInfoDelay(e.details);
  return details;
}

/** The retryDelay of a google.rpc.RetryInfo in `details`, a Duration ("34.4s" or {seconds, nanos}), in ms. */
export function retryInfoDelay(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const d of details as unknown[]) {
    if (!isRecord(d) || typeof d["@type"] !== "string" || !d["@type"].endsWith("google.rpc.RetryInfo")) continue;
    const v = d.retryDelay;
    if (typeof v === "string") {
      const m = /^(\d+(?:\.\d+)?)s$/.exec(v.trim());
      if (m) return Math.round(Number(m[1]) * 1000);
    } else if (isRecord(v)) {
      const { seconds = 0, nanos = 0 } = v;
      const ms = Number(seconds) * 1000 + Number(nanos) / 1e6;
      if (Number.isFinite(ms)) return Math.round(ms);
    }
  }
  return undefined;
}
