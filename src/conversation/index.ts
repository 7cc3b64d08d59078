// The conversation layer's index: the rest of toolloop imports this folder through here.
export * from "./history.js";
export * from "./messages.js";
export * from "./provider.js";
