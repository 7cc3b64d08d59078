import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { claudeLocal } from "../../adapters/claude-local/index.js";
import { createClient, isToolloopError, StructuredOutputError } from "../../src/index.js";
import { FAKE_CLAUDE, fakeSession } from "./fake.js";

const City = v.object({
  name: v.string(),
  country: v.string(),
  population: v.pipe(v.number(), v.integer()),
});

function schemaFlag(argv: string[]): string | undefined {
  return argv.find((a) => a.startsWith("--append-system-prompt="))?.slice("--append-system-prompt=".length);
}

describe("claudeLocal: ask", () => {
  it("puts the JSON schema in the appended system prompt and returns the validated value", async () => {
    const fake = fakeSession(['{"name":"Paris","country":"France","population":2102650}']);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }), systemPrompt: "You know geography." });
    const city = await client.ask("The capital of France, as JSON.", City);
    expect(city).toEqual({ name: "Paris", country: "France", population: 2102650 });
    const argv = fake.invocations()[0]!.argv;
    const instruction = schemaFlag(argv)!;
    expect(instruction).toContain("Answer with only a JSON value");
    const schema = JSON.parse(instruction.slice(instruction.indexOf("{")));
    expect(schema).toMatchObject({ type: "object", required: ["name", "country", "population"] });
    // The user's system prompt stays its own flag.
    expect(argv).toContain("--system-prompt=You know geography.");
    expect(fake.invocations()[0]!.stdin).toBe("The capital of France, as JSON.");
  });

  it("accepts JSON wrapped in a code fence and prose", async () => {
    const fake = fakeSession(['Here it is:\n```json\n{"name":"Rome","country":"Italy","population":2800000}\n```\nAnything else?']);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    expect(await client.ask("Capital of Italy?", City)).toEqual({ name: "Rome", country: "Italy", population: 2800000 });
  });

  it("re-asks once with the issues, and the second answer is used", async () => {
    const fake = fakeSession(['{"name":"Berlin","country":"Germany"}', '{"name":"Berlin","country":"Germany","population":3850000}']);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    expect(await client.ask("Capital of Germany?", City)).toEqual({ name: "Berlin", country: "Germany", population: 3850000 });
    const reask = fake.invocations()[1]!;
    // The re-ask sees the first answer in the history and names what was wrong.
    expect(reask.stdin).toContain('<assistant>\n{"name":"Berlin","country":"Germany"}\n</assistant>');
    expect(reask.stdin).toMatch(/did not match the required JSON schema[\s\S]*population/);
    expect(schemaFlag(reask.argv)).toBeDefined();
  });

  it("an answer that stays invalid after the re-ask throws StructuredOutputError", async () => {
    const fake = fakeSession(["I think it is Madrid.", "Madrid, definitely."]);
    const client = createClient({ provider: claudeLocal({ command: FAKE_CLAUDE, env: fake.env }) });
    const err = await client.ask("Capital of Spain?", City).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StructuredOutputError);
    expect(isToolloopError(err, "structured_output")).toBe(true);
    expect((err as StructuredOutputError).text).toBe("Madrid, definitely.");
    expect(fake.invocations()).toHaveLength(2);
  });
});
