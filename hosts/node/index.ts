// toolloop/node: a web-standard fetch handler ((Request) => Promise<Response>, such as
// mcpHandler()) served by node:http. Deno.serve, Bun.serve and Workers take such a handler as it
// is; Node's own server speaks IncomingMessage / ServerResponse, and this entry translates:
//   serve(handler, { port, hostname }) -> Promise<{ url, port, server, close() }>
//   nodeListener(handler) -> (req, res) => Promise<void>, for an existing http(s) server
// Bodies stream both ways with backpressure, a client that hangs up aborts request.signal,
// and a handler that throws is a bare 500. The one entry that imports a node: module.
export { type FetchHandler, type NodeListenerOptions, type NodeRequestListener, nodeListener } from "./listener.js";
export { type CloseOptions, type NodeServer, type ServeOptions, serve } from "./serve.js";
