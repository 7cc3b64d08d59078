// The http layer's index: the rest of toolloop imports this folder through here.
export * from "./api-key.js";
export * from "./body.js";
export * from "./http.js";
export * from "./provider-options.js";
export * from "./retry.js";
export * from "./sse.js";
export * from "./stall.js";
