// The cost layer's index: the rest of toolloop imports this folder through here.
export * from "./compaction.js";
export * from "./fallback.js";
export * from "./pricing.js";
export * from "./stall-timeout.js";
export * from "./trace.js";
export * from "./wrap.js";
