// toolloop/http: the HTTP kit toolloop's own adapters use, for writing an adapter (or a tool
// that calls an HTTP API) of your own with the same behaviour: bounded retries honouring
// Retry-After, abort everywhere, an idle limit, body reads that always end, SSE decoding,
// typed errors that never carry the API key, and the browser-key guard. Stall timeouts need
// nothing here: stallTimeout(provider, { first, between }) from "toolloop" wraps any provider.
//
//   import { httpSettings, postJSON, readCommonError, type ProviderOptions } from "toolloop/http";
//
//   export function myProvider(options: ProviderOptions): Provider {
//     return {
//       name: "mine",
//       async generate(request) {
//         const http = httpSettings("mine", options, "https://api.example.com/v1", {
//           maxRetries: request.maxRetries,
//           idleTimeout: request.idleTimeout,
//           readError: (body) => readCommonError(body), // your vendor's error body
//         });
//         const { body } = await postJSON(http, { url, headers: { authorization: `Bearer ${options.apiKey}` }, body: {...}, signal: request.signal });
//         ...
//       },
//     };
//   }
//
// httpSettings registers the key, so every error built while it is in use is scrubbed of it.

export {
  BrowserKeyError,
  ConnectionError,
  IdleTimeoutError,
  isBrowser,
  isToolloopError,
  MissingApiKeyError,
  ProviderError,
  StreamError,
  ToolloopError,
} from "../base/index.js";
export type { KeySpec } from "./api-key.js";
export { requireApiKey } from "./api-key.js";
export { readText, sleep } from "./body.js";
export type { ErrorBodyReader, ErrorDetails, EventSourceMessage, FetchFn, HttpRequest, HttpSettings } from "./http.js";
export { postJSON, postSSE, readCommonError } from "./http.js";
export type { ProviderOptions, RequestOverrides } from "./provider-options.js";
export { httpSettings, trimSlash } from "./provider-options.js";
export { backoff, retryAfter } from "./retry.js";
