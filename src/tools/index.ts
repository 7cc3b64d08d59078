// The tools layer's index: the rest of toolloop imports this folder through here.
export * from "./clean-json.js";
export * from "./describe.js";
export * from "./external-tool.js";
export * from "./registry.js";
export * from "./tool.js";
