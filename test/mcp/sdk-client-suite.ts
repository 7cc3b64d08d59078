// What the official SDK client must see from our mcpHandler, whatever runtime serves it.
// Used by the Node suite and the workerd suite with the same expectations.
import { expect, it } from "vitest";
import { add, getWeather, rawEcho } from "./fixtures/tools.js";
import { sdkClient } from "./helpers.js";

type TextBlock = { type: string; text: string };

export function sdkClientSuite(url: () => string): void {
  it("connects, negotiating the SDK's latest revision (2025-11-25), and reads server info", async () => {
    const client = await sdkClient(url());
    try {
      expect(client.http.protocolVersion).toBe("2025-11-25");
      expect(client.http.sessionId).toBeUndefined(); // stateless
      expect(client.getServerVersion()).toMatchObject({ version: expect.any(String) });
      expect(client.getServerCapabilities()).toMatchObject({ tools: {} });
      expect(typeof client.getInstructions()).toBe("string");
      await expect(client.ping()).resolves.toEqual({});
    } finally {
      await client.close();
    }
  });

  it("lists the tools with their schemas intact", async () => {
    const client = await sdkClient(url());
    try {
      const { tools } = await client.listTools();
      const byName = new Map(tools.map((t) => [t.name, t]));
      expect(byName.get("get_weather")).toMatchObject({ description: getWeather.description, inputSchema: getWeather.parameters });
      expect(byName.get("add")!.inputSchema).toEqual(add.parameters);
      expect(byName.get("raw_echo")!.inputSchema).toEqual(rawEcho.parameters);
      expect(byName.get("Shout")).toMatchObject({ title: "Shout it", annotations: { readOnlyHint: true } });
    } finally {
      await client.close();
    }
  });

  it("calls a tool", async () => {
    const client = await sdkClient(url());
    try {
      const r = await client.callTool({ name: "get_weather", arguments: { city: "Lisbon", unit: "fahrenheit" } });
      expect(r.isError).toBe(false);
      expect(JSON.parse((r.content as TextBlock[])[0]!.text)).toEqual({ city: "Lisbon", temperature: 70, unit: "fahrenheit" });
      const sum = await client.callTool({ name: "add", arguments: { a: 0.5, b: 0.25 } });
      expect(sum.content).toEqual([{ type: "text", text: "0.75" }]);
    } finally {
      await client.close();
    }
  });

  it("invalid arguments come back as an isError result naming the problem", async () => {
    const client = await sdkClient(url());
    try {
      const r = await client.callTool({ name: "raw_echo", arguments: { text: 42 } });
      expect(r.isError).toBe(true);
      expect((r.content as TextBlock[])[0]!.text).toMatch(/Invalid arguments for tool raw_echo:\n- \/text: /);
      const refined = await client.callTool({ name: "even_only", arguments: { n: 7 } });
      expect(refined.isError).toBe(true);
      expect((refined.content as TextBlock[])[0]!.text).toContain("n must be even");
    } finally {
      await client.close();
    }
  });

  it("a throwing tool is an isError result and the server keeps serving", async () => {
    const client = await sdkClient(url());
    try {
      const r = await client.callTool({ name: "explode", arguments: {} });
      expect(r).toMatchObject({ isError: true, content: [{ type: "text", text: "kaboom: the tool failed" }] });
      const p = await client.callTool({ name: "panic", arguments: {} });
      expect(p.isError).toBe(true);
      expect((p.content as TextBlock[])[0]!.text).toMatch(/^tool handler panicked/);
      expect((await client.callTool({ name: "shout", arguments: { text: "still here" } })).content).toEqual([{ type: "text", text: "STILL HERE" }]);
    } finally {
      await client.close();
    }
  });

  it("an unknown tool rejects with -32602", async () => {
    const client = await sdkClient(url());
    try {
      await expect(client.callTool({ name: "missing_tool", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });
}
