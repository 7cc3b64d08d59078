// A local payments API that behaves like the real ones on idempotency (Stripe's rules): every
// request needs an Idempotency-Key; a key seen before gets the first answer back and makes no
// new payment; the same key with another body is refused (422). It validates every request
// strictly (400 for anything else), and can take a payment and then never answer, which is what
// a crash mid-call looks like from the caller's side.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface PaymentRequest {
  key: string | undefined;
  body: unknown;
  /** The status answered (undefined: held, never answered). */
  status: number | undefined;
}

export interface PaymentsMock {
  /** POST here. */
  url: string;
  requests: PaymentRequest[];
  /** Payments made, by idempotency key. */
  payments: Map<string, { id: string; amount: number; currency: string; to: string }>;
  /** The next valid request makes its payment and is never answered; resolves when it arrived. */
  holdNext(): Promise<PaymentRequest>;
  close(): Promise<void>;
}

const CURRENCIES = ["EUR", "USD", "GBP"];

export async function startPaymentsMock(): Promise<PaymentsMock> {
  const requests: PaymentRequest[] = [];
  const payments: PaymentsMock["payments"] = new Map();
  const bodies = new Map<string, string>();
  const sockets = new Set<Socket>();
  let hold: ((r: PaymentRequest) => void) | undefined;

  const server = createServer(async (req, res) => {
    const text = await readBody(req);
    const key = typeof req.headers["idempotency-key"] === "string" ? req.headers["idempotency-key"] : undefined;
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    const record: PaymentRequest = { key, body, status: undefined };
    requests.push(record);
    const answer = (status: number, value: unknown) => {
      record.status = status;
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    };
    const problem = validate(req, key, body);
    if (problem) return answer(400, { error: { type: "invalid_request_error", message: problem } });
    if (bodies.has(key!) && bodies.get(key!) !== JSON.stringify(body)) {
      return answer(422, { error: { type: "idempotency_error", message: "this Idempotency-Key was used with another request body" } });
    }
    if (!payments.has(key!)) {
      const { amount, currency, to } = body as { amount: number; currency: string; to: string };
      payments.set(key!, { id: `py_${randomBytes(8).toString("hex")}`, amount, currency, to });
      bodies.set(key!, JSON.stringify(body));
    }
    if (hold) {
      const release = hold;
      hold = undefined;
      release(record); // paid, and the answer never comes
      return;
    }
    answer(200, payments.get(key!));
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/payments`,
    requests,
    payments,
    holdNext: () => new Promise((resolve) => (hold = resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function validate(req: IncomingMessage, key: string | undefined, body: unknown): string | undefined {
  if (req.method !== "POST" || new URL(req.url ?? "/", "http://x").pathname !== "/v1/payments") return `${req.method} ${req.url}: only POST /v1/payments`;
  if (!req.headers["content-type"]?.startsWith("application/json")) return "content-type must be application/json";
  if (key === undefined || !/^[\w-]{8,255}$/.test(key)) return "an Idempotency-Key header (8-255 characters of [A-Za-z0-9_-]) is required";
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "the body must be a JSON object";
  const { amount, currency, to, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length) return `unknown fields: ${Object.keys(rest).join(", ")}`;
  if (typeof amount !== "number" || !(amount > 0)) return "amount must be a positive number";
  if (typeof currency !== "string" || !CURRENCIES.includes(currency)) return `currency must be one of ${CURRENCIES.join(", ")}`;
  if (typeof to !== "string" || to === "") return "to must be a non-empty string";
  return undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
