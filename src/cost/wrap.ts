// The client's cost features (pricing, tracer, compaction) sit around the user's provider
// as thin layers, so the loop never learns about them.
import type { Provider } from "../conversation/index.js";

/** A provider with `inner`'s name and model around another generate. */
export const wrap = (inner: Provider, generate: Provider["generate"]): Provider => ({ name: inner.name, model: inner.model, generate });
