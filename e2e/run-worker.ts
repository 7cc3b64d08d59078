// Runner for workerd: a module worker (no nodejs_compat). POST the config as JSON, get the report.
import { type E2EConfig, runAll } from "./entry.js";

export default {
  async fetch(request: Request): Promise<Response> {
    if (request.method !== "POST") return new Response("POST an E2E config", { status: 405 });
    const config = (await request.json()) as E2EConfig;
    return Response.json(await runAll(config));
  },
};
