// What mcpHandler answers a request its `authorize` refused: 401 (no token, or one not taken) or
// 403 (a token without the scope this request needs), each with a Bearer challenge (RFC 6750)
// that says so, and, for a protected resource, where its metadata is (RFC 9728).
import { errorResponse } from "../wire/http.js";
import { failure, INVALID_REQUEST } from "../wire/jsonrpc.js";

/**
 * What `authorize` may return instead of `false`, to say why: `invalid_token` (expired, revoked,
 * issued for another resource: 401, and the client gets a new one) or `insufficient_scope` (403:
 * the client asks again for `scope`, the scopes this request needs).
 */
export type McpAuthRefusal =
  | { error: "invalid_token"; description?: string | undefined }
  | { error: "insufficient_scope"; scope?: readonly string[] | undefined; description?: string | undefined };

/** `authorize`'s verdict: `true` serves the request; anything else refuses it. */
export type McpAuthorizeResult = boolean | McpAuthRefusal;

/** The part of protectedResource()'s value a refusal needs. */
interface Challenger {
  challenge(refusal?: McpAuthRefusal): string;
}

/** The answer to a request `authorize` did not accept (`verdict` is whatever it returned). */
export function refusedResponse(verdict: unknown, resource: Challenger | undefined, cors: Record<string, string>): Response {
  const refusal = asRefusal(verdict);
  const challenge = resource ? resource.challenge(refusal) : challengeValue(refusal);
  if (refusal?.error === "insufficient_scope") {
    return errorResponse(403, failure(null, INVALID_REQUEST, "Forbidden: the token lacks a scope this request needs"), {
      ...cors,
      "www-authenticate": challenge,
    });
  }
  return errorResponse(401, failure(null, INVALID_REQUEST, "Unauthorized"), { ...cors, "www-authenticate": challenge });
}

/**
 * `Bearer` with its parameters: where the metadata is, the scopes to ask for, and (only when
 * `authorize` said why) the error. A request with no token gets no error code (RFC 6750 3.1).
 */
export function challengeValue(refusal?: McpAuthRefusal, metadataUrl?: string, scope?: readonly string[]): string {
  const params: string[] = [];
  if (metadataUrl) params.push(`resource_metadata=${quoted(metadataUrl)}`);
  const scopes = refusal?.error === "insufficient_scope" && refusal.scope?.length ? scopeTokens(refusal.scope) : scope;
  if (scopes?.length) params.push(`scope=${quoted(scopes.join(" "))}`);
  if (refusal) {
    params.push(`error=${quoted(refusal.error)}`);
    const description = typeof refusal.description === "string" ? refusal.description.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, "").slice(0, 200) : "";
    if (description) params.push(`error_description=${quoted(description)}`);
  }
  return params.length ? `Bearer ${params.join(", ")}` : "Bearer";
}

/** The scope names that are valid RFC 6749 scope tokens (printable ASCII, no space, quote or backslash). */
export function scopeTokens(values: readonly unknown[]): string[] {
  return values.filter((s): s is string => typeof s === "string" && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s));
}

/** `authorize`'s verdict as a refusal with a reason, or undefined (false, or anything unrecognised). */
function asRefusal(verdict: unknown): McpAuthRefusal | undefined {
  if (typeof verdict !== "object" || verdict === null) return undefined;
  const { error, scope, description } = verdict as Record<string, unknown>;
  const text = typeof description === "string" ? description : undefined;
  if (error === "invalid_token") return { error, description: text };
  if (error === "insufficient_scope") return { error, scope: Array.isArray(scope) ? scope : undefined, description: text };
  return undefined;
}

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, "\\$&")}"`;
}
