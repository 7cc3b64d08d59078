// The mock answers like the real API: wire format (CRLF SSE, Google's JSON spacing) and
// the validation errors with the bodies Google sends, so the adapter tests can trust it.
import { describe, expect, it } from "vitest";
import { type GeminiMock, MOCK_API_KEY } from "../mock/gemini.js";
import { withMock } from "./helpers.js";
import { fixtureText } from "./recordings.js";

const user = (text: string) => ({ role: "user", parts: [{ text }] });

async function post(
  mock: GeminiMock,
  body: unknown,
  opts: { stream?: boolean; key?: string | null; path?: string } = {},
): Promise<{ status: number; type: string; text: string; json: () => unknown }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (opts.key !== null) headers["x-goog-api-key"] = opts.key ?? MOCK_API_KEY;
  const path = opts.path ?? (opts.stream ? "models/gemini-3-pro-preview:streamGenerateContent?alt=sse" : "models/gemini-3-pro-preview:generateContent");
  const res = await fetch(`${mock.url}/${path}`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type") ?? "", text, json: () => JSON.parse(text) };
}

const apiError = (code: number, message: string, status: string) => ({ error: { code, message, status } });

describe("the Gemini mock", () => {
  it("streams CRLF-framed events with the real wire's spacing, no [DONE]", async () => {
    await withMock({ script: [{ text: "The capital of France is Paris." }] }, async (mock) => {
      const r = await post(mock, { contents: [user("Capital?")] }, { stream: true });
      expect(r.status).toBe(200);
      expect(r.type).toBe("text/event-stream");
      const events = r.text.split("\r\n\r\n");
      expect(events.pop()).toBe("");
      expect(events.every((e) => e.startsWith('data: {"candidates": [{"content": {"parts": [{"text": '))).toBe(true);
      expect(r.text).not.toContain("[DONE]");
      expect(r.text).not.toMatch(/(?<!\r)\n/);
      // the same style as a recorded stream: `": "` after keys, no space after commas
      const recorded = fixtureText("pydantic-ai/test_google_model_stream.1.sse");
      expect(recorded.startsWith('data: {"candidates": [{"content": {"parts": [{"text": "The"}],"role": "model"}}],"usageMetadata": {')).toBe(true);
      expect(events[0]).toMatch(
        /^data: \{"candidates": \[\{"content": \{"parts": \[\{"text": "The capital "\}\],"role": "model"\},"index": 0\}\],"usageMetadata": \{"promptTokenCount": \d+,/,
      );
      expect(events[events.length - 1]).toContain('"finishReason": "STOP"');
    });
  });

  it("generateContent answers one pretty-printed body", async () => {
    await withMock({ script: [{ text: "Hi there." }] }, async (mock) => {
      const r = await post(mock, { contents: [user("Hi")] });
      expect(r.type).toBe("application/json; charset=UTF-8");
      expect(r.text.startsWith('{\n  "candidates": [\n')).toBe(true);
      expect(r.json()).toMatchObject({
        candidates: [{ content: { parts: [{ text: "Hi there." }], role: "model" }, finishReason: "STOP", index: 0 }],
        modelVersion: "gemini-3-pro-preview",
      });
    });
  });

  it("without alt=sse a stream is one JSON array", async () => {
    await withMock({ script: [{ text: "a b c d" }] }, async (mock) => {
      const r = await post(mock, { contents: [user("x")] }, { path: "models/m:streamGenerateContent" });
      const chunks = r.json() as { candidates: unknown[] }[];
      expect(Array.isArray(chunks)).toBe(true);
      expect(chunks.length).toBeGreaterThan(1);
    });
  });

  it("checks the key like Google: missing → 403, wrong → 400 API_KEY_INVALID; ?key= works too", async () => {
    await withMock({}, async (mock) => {
      const missing = await post(mock, { contents: [user("x")] }, { key: null });
      expect(missing.status).toBe(403);
      expect(missing.json()).toEqual(
        apiError(
          403,
          "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
          "PERMISSION_DENIED",
        ),
      );
      const wrong = await post(mock, { contents: [user("x")] }, { key: "nope" });
      expect(wrong.status).toBe(400);
      expect(wrong.json()).toEqual({
        error: {
          code: 400,
          message: "API key not valid. Please pass a valid API key.",
          status: "INVALID_ARGUMENT",
          details: [
            {
              "@type": "type.googleapis.com/google.rpc.ErrorInfo",
              reason: "API_KEY_INVALID",
              domain: "googleapis.com",
              metadata: { service: "generativelanguage.googleapis.com" },
            },
            { "@type": "type.googleapis.com/google.rpc.LocalizedMessage", locale: "en-US", message: "API key not valid. Please pass a valid API key." },
          ],
        },
      });
      const query = await post(mock, { contents: [user("x")] }, { key: null, path: `models/m:generateContent?key=${MOCK_API_KEY}` });
      expect(query.status).toBe(200);
    });
  });

  it("rejects unknown fields and wrong types the way proto JSON parsing does", async () => {
    await withMock({}, async (mock) => {
      const r = await post(mock, {
        contents: [{ role: "user", parts: [{ text: "x", bogus: 1 }] }],
        tools: [{ functionDeclarations: [{ name: "t", description: "", parametersJsonSchema: {}, strict: true }] }],
      });
      expect(r.status).toBe(400);
      const body = r.json() as { error: { message: string; status: string; details: { fieldViolations: { field: string }[] }[] } };
      expect(body.error.status).toBe("INVALID_ARGUMENT");
      expect(body.error.message).toBe(
        [
          `Invalid JSON payload received. Unknown name "bogus" at 'contents[0].parts[0]': Cannot find field.`,
          `Invalid JSON payload received. Unknown name "strict" at 'tools[0].function_declarations[0]': Cannot find field.`,
        ].join("\n"),
      );
      expect(body.error.details[0]!.fieldViolations.map((v) => v.field)).toEqual(["contents[0].parts[0]", "tools[0].function_declarations[0]"]);
      const typed = await post(mock, { contents: [{ role: "user", parts: [{ functionResponse: { name: "f", response: "text" } }] }] });
      expect((typed.json() as { error: { message: string } }).error.message).toBe(
        `Invalid value at 'contents[0].parts[0].function_response.response' (type.googleapis.com/google.protobuf.Struct), "text"`,
      );
    });
  });

  it("rejects empty contents, empty parts and unknown roles", async () => {
    await withMock({}, async (mock) => {
      expect((await post(mock, { contents: [] })).json()).toEqual(
        apiError(400, "* GenerateContentRequest.contents: contents is not specified\n", "INVALID_ARGUMENT"),
      );
      expect((await post(mock, { contents: [{ role: "user", parts: [] }] })).json()).toEqual(
        apiError(400, "* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n", "INVALID_ARGUMENT"),
      );
      expect((await post(mock, { contents: [{ role: "assistant", parts: [{ text: "x" }] }] })).json()).toEqual(
        apiError(400, "Please use a valid role: user, model.", "INVALID_ARGUMENT"),
      );
    });
  });

  it("requires every function call to be answered in the next turn", async () => {
    const call = { role: "model", parts: [{ functionCall: { name: "f", args: {} } }, { functionCall: { name: "g", args: {} } }] };
    const oneAnswer = { role: "user", parts: [{ functionResponse: { name: "f", response: { output: 1 } } }] };
    await withMock({}, async (mock) => {
      expect((await post(mock, { contents: [user("go"), call, oneAnswer] })).json()).toEqual(
        apiError(
          400,
          "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
          "INVALID_ARGUMENT",
        ),
      );
      expect((await post(mock, { contents: [user("go"), call, user("hm?")] })).status).toBe(400);
      expect((await post(mock, { contents: [user("go"), oneAnswer] })).json()).toEqual(
        apiError(400, "Please ensure that function response turn comes immediately after a function call turn.", "INVALID_ARGUMENT"),
      );
      const twoAnswers = { role: "user", parts: [...oneAnswer.parts, { functionResponse: { name: "g", response: { output: 2 } } }] };
      expect((await post(mock, { contents: [user("go"), call, twoAnswers] })).status).toBe(200);
      // with ids, the answers must carry them
      const withIds = { role: "model", parts: [{ functionCall: { id: "a", name: "f", args: {} } }] };
      expect(
        (await post(mock, { contents: [user("go"), withIds, { role: "user", parts: [{ functionResponse: { id: "b", name: "f", response: {} } }] }] })).status,
      ).toBe(400);
      expect(
        (await post(mock, { contents: [user("go"), withIds, { role: "user", parts: [{ functionResponse: { id: "a", name: "f", response: {} } }] }] })).status,
      ).toBe(200);
    });
  });

  it("requires a signature it issued to come back on the call (Gemini 3)", async () => {
    await withMock(
      { script: [{ toolCalls: [{ name: "f", input: { x: 1 } }], thoughtSignature: "c2lnLWE=" }, { text: "ok" }, { text: "ok" }, { text: "ok" }] },
      async (mock) => {
        const first = (await post(mock, { contents: [user("go")] })).json() as { candidates: { content: { parts: unknown[] } }[] };
        const issued = first.candidates[0]!.content.parts[0] as { functionCall: unknown; thoughtSignature: string };
        expect(issued).toEqual({ functionCall: { name: "f", args: { x: 1 } }, thoughtSignature: "c2lnLWE=" });
        const answer = { role: "user", parts: [{ functionResponse: { name: "f", response: { output: "y" } } }] };
        const bare = await post(mock, { contents: [user("go"), { role: "model", parts: [{ functionCall: issued.functionCall }] }, answer] });
        expect(bare.status).toBe(400);
        expect((bare.json() as { error: { message: string } }).error.message).toMatch(
          /^Function call is missing a thought_signature in functionCall parts\. .*function call `default_api:f` , position 2\./,
        );
        expect((await post(mock, { contents: [user("go"), { role: "model", parts: [issued] }, answer] })).status).toBe(200);
        const skip = { functionCall: issued.functionCall, thoughtSignature: "skip_thought_signature_validator" };
        expect((await post(mock, { contents: [user("go"), { role: "model", parts: [skip] }, answer] })).status).toBe(200);
        const garbled = await post(mock, { contents: [user("go"), { role: "model", parts: [{ ...issued, thoughtSignature: "not base64!" }] }, answer] });
        expect((garbled.json() as { error: { message: string } }).error.message).toBe(
          `Invalid value at 'contents[1].parts[0].thought_signature' (TYPE_BYTES), Base64 decoding failed for "not base64!"`,
        );
      },
    );
  });

  it("validates function declarations", async () => {
    const decl = (d: Record<string, unknown>) => ({ contents: [user("x")], tools: [{ functionDeclarations: [{ description: "", ...d }] }] });
    await withMock({}, async (mock) => {
      expect(((await post(mock, decl({ name: "1bad" }))).json() as { error: { message: string } }).error.message).toMatch(
        /function_declarations\[0\]\.name: Invalid function name/,
      );
      expect((await post(mock, decl({ name: "t", parameters: { type: "OBJECT" }, parametersJsonSchema: {} }))).status).toBe(400);
      expect(
        (await post(mock, decl({ name: "t", parametersJsonSchema: { type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs: { A: {} } } }))).status,
      ).toBe(200);
    });
  });

  it("serves queued raw responses first, then the script", async () => {
    await withMock({ script: [{ text: "scripted" }] }, async (mock) => {
      mock.enqueue({ status: 503, body: apiError(503, "overloaded", "UNAVAILABLE") });
      expect((await post(mock, { contents: [user("x")] })).status).toBe(503);
      expect((await post(mock, { contents: [user("x")] })).json()).toMatchObject({ candidates: [{ content: { parts: [{ text: "scripted" }] } }] });
      expect(mock.requests).toHaveLength(2);
    });
  });

  it("answers CORS preflights when asked to", async () => {
    await withMock({ cors: true }, async (mock) => {
      const res = await fetch(`${mock.url}/models/m:generateContent`, {
        method: "OPTIONS",
        headers: { origin: "http://localhost:5173", "access-control-request-method": "POST", "access-control-request-headers": "content-type,x-goog-api-key" },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
      expect(res.headers.get("access-control-allow-headers")).toBe("content-type,x-goog-api-key");
      const r = await fetch(`${mock.url}/models/m:generateContent`, {
        method: "POST",
        headers: { origin: "http://localhost:5173", "content-type": "application/json", "x-goog-api-key": MOCK_API_KEY },
        body: JSON.stringify({ contents: [user("x")] }),
      });
      expect(r.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    });
  });
});
