// The suspension layer's index: the rest of toolloop imports this folder through here.
export * from "./decisions.js";
export * from "./sign.js";
export * from "./suspension.js";
