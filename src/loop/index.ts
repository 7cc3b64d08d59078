// The loop layer's index: the rest of toolloop imports this folder through here.
export * from "./execute.js";
export * from "./invoke.js";
export * from "./loop.js";
export * from "./plan.js";
export * from "./step-finish.js";
export * from "./stop.js";
export * from "./types.js";
