// The schema layer's index: the rest of toolloop imports this folder through here.
export * from "./json-schema.js";
export * from "./schema.js";
export * from "./schema-walk.js";
