// The base layer's index: the rest of toolloop imports this folder through here.
export * from "./abort.js";
export * from "./base64.js";
export * from "./describe-error.js";
export * from "./errors.js";
export * from "./hash.js";
export * from "./hmac.js";
export * from "./issues.js";
export * from "./json-depth.js";
export * from "./log.js";
export * from "./options.js";
export * from "./recoverable.js";
export * from "./runtime.js";
export * from "./secrets.js";
export * from "./store.js";
export * from "./values.js";
