// The one error the OAuth client throws: AuthError (code "auth_error"), with a `reason` a caller
// can branch on. Its message is scrubbed like every ToolloopError's (tokens, verifiers, codes and
// client secrets are registered as secrets when they are made), and URLs in it keep only scheme,
// host and path.
import { ToolloopError } from "../../../src/base/index.js";

/** Why authorization failed. */
export type AuthFailure =
  | "discovery" // no usable protected resource or authorization server metadata
  | "resource_mismatch" // the protected resource metadata names another resource than the server
  | "issuer_mismatch" // the metadata, or the callback's `iss`, names another authorization server
  | "insecure_endpoint" // an OAuth URL that is neither https nor loopback
  | "pkce_unsupported" // the authorization server does not list S256 in code_challenge_methods_supported
  | "no_client" // no pre-registered client, no client ID metadata document, no dynamic registration
  | "registration" // dynamic client registration was refused
  | "authorization" // the callback carries an error, no code, or a state no flow is waiting for
  | "pending" // the redirect step did not come back (the page navigated away): call complete() later
  | "token" // the token endpoint refused the code or the refresh token
  | "insufficient_scope"; // the server still wants more scope after the step-ups allowed

/** Authorization of an MCP server failed; `reason` says at which step. */
export class AuthError extends ToolloopError {
  readonly reason: AuthFailure;
  /** The authorization server's own error code (`invalid_grant`, `access_denied`...), when it sent one. */
  readonly oauthError: string | undefined;
  /** With reason "pending": where the user must go to authorize (no secret in it). */
  readonly authorizationUrl: string | undefined;
  constructor(reason: AuthFailure, message: string, extra: { oauthError?: string | undefined; authorizationUrl?: string; cause?: unknown } = {}) {
    super("auth_error", `mcp oauth: ${message}`, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.reason = reason;
    this.oauthError = extra.oauthError;
    this.authorizationUrl = extra.authorizationUrl;
  }
}
