// The follow layer's index: following a run's event stream from outside the run (a page, another
// Worker, a script). It builds on http/ (SSE parsing, abortable reads) and nothing imports it, so
// an agent that does not call follow() ships none of it.
export { type FollowedEvent, follow } from "./follow.js";
export type { FollowOptions } from "./options.js";
