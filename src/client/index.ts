// The client: createClient() and its options; index.ts exports it as toolloop's entry.
export * from "./client.js";
export { streamRun } from "./stream.js";
