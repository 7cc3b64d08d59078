// suspension() has no default: it signs with a secret, or is unsigned because the caller said
// so. A secret read from an unset variable (undefined), an empty or short one, or a key that
// cannot sign is refused when suspension() is called, with a message that says what to write,
// so a pending payment can never be edited from 3 to 9999 and approved because a variable was
// missing (issue 24, newcomer 1).
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { createClient, isToolloopError, type Message, suspension, tool } from "../../src/index.js";
import { scriptedProvider } from "../../src/testing.js";

const SECRET = "0123456789abcdef0123456789abcdef"; // exactly 32 characters

function payTool(paid: number[]) {
  return tool({
    name: "pay",
    description: "Pays an amount.",
    input: v.object({ amount: v.number() }),
    needsApproval: true,
    run: async ({ amount }) => (paid.push(amount), `paid ${amount}`),
  });
}

/** What suspension(options) throws, or "no error". */
function thrown(options: unknown): unknown {
  try {
    (suspension as (o?: unknown) => unknown)(options);
    return "no error";
  } catch (err) {
    return err;
  }
}

/** Suspends a payment of 3, edits the saved history to 9999, and approves it in a new client. */
async function editAndApprove(waits: ReturnType<typeof suspension>) {
  const paid: number[] = [];
  const turns = [{ toolCalls: [{ name: "pay", arguments: { amount: 3 }, id: "p1" }] }, "ok"];
  const first = createClient({ provider: scriptedProvider(turns), tools: [payTool(paid)], suspension: waits });
  await first.run("Pay 3.");
  const saved = JSON.parse(JSON.stringify(first.history).replace('{\\"amount\\":3}', '{\\"amount\\":9999}')) as Message[];
  const second = createClient({ provider: scriptedProvider(turns.slice(1)), tools: [payTool(paid)], suspension: waits, history: saved });
  const outcome = await second.resume([{ callId: "p1", approved: true }]).then(
    (r) => r.status,
    (err: { code?: string }) => err.code,
  );
  return { outcome, paid };
}

describe("suspension() needs a secret, or { unsigned: true } said out loud", () => {
  const unset: Record<string, unknown> = {
    "suspension()": undefined,
    "suspension({})": {},
    "suspension({ secret: undefined }) (an unset variable)": { secret: undefined },
    "suspension({ secret: env.SIGNING_SECRET }) with the variable unset": { secret: ({} as { SIGNING_SECRET?: string }).SIGNING_SECRET },
    "suspension({ secret: null })": { secret: null },
    "suspension({ unsigned: false })": { unsigned: false },
  };
  for (const [name, options] of Object.entries(unset)) {
    it(`${name} is refused with InvalidOptionsError, saying what to write instead`, () => {
      const err = thrown(options);
      expect(isToolloopError(err, "invalid_options"), String(err)).toBe(true);
      expect((err as Error).name).toBe("InvalidOptionsError");
      expect((err as Error).message).toContain("at least 32");
      expect((err as Error).message).toContain("suspension({ unsigned: true })");
    });
  }

  it("says what it got: no secret, undefined, or a string's length (never the string itself)", () => {
    expect((thrown(undefined) as Error).message).toMatch(/^suspension\(\{ secret \}\) got no secret: /);
    expect((thrown({ secret: undefined }) as Error).message).toMatch(/got undefined: /);
    const short = thrown({ secret: "hunter2" }) as Error;
    expect(short.message).toMatch(/got a string of 7 characters \(at least 32 are needed\)/);
    expect(short.message).not.toContain("hunter2");
    expect((thrown({ secret: 42 }) as Error).message).toMatch(/got a number: /);
  });

  it("an empty secret is an InvalidOptionsError when suspension() is called, not a DOMException from Web Crypto at the first suspension", () => {
    const err = thrown({ secret: "" });
    expect(isToolloopError(err, "invalid_options")).toBe(true);
    expect((err as Error).message).toContain("a string of 0 characters");
  });

  it("takes a string of 32 characters, and refuses one of 31", () => {
    expect(thrown({ secret: SECRET })).toBe("no error");
    expect(isToolloopError(thrown({ secret: SECRET.slice(1) }), "invalid_options")).toBe(true);
  });

  it("takes an HMAC CryptoKey that may sign; refuses another algorithm's key, a verify-only key and a short key", async () => {
    const hmac = { name: "HMAC", hash: "SHA-256" } as const;
    const good = await crypto.subtle.generateKey(hmac, false, ["sign", "verify"]);
    expect(thrown({ secret: good })).toBe("no error");
    const aes = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt"]);
    expect((thrown({ secret: aes }) as Error).message).toContain("got a CryptoKey for AES-GCM");
    const verifyOnly = await crypto.subtle.importKey("raw", new TextEncoder().encode(SECRET), hmac, false, ["verify"]);
    expect((thrown({ secret: verifyOnly }) as Error).message).toContain('got a CryptoKey for HMAC without the "sign" usage');
    const short = await crypto.subtle.importKey("raw", new TextEncoder().encode("k"), hmac, false, ["sign"]);
    expect((thrown({ secret: short }) as Error).message).toContain("an HMAC CryptoKey of 8 bits");
  });

  it("names a misspelt key instead of reading it as no secret", () => {
    expect(thrown({ secrte: SECRET })).toMatchObject({ code: "invalid_options", message: expect.stringContaining("did you mean `secret`?") });
    expect(thrown({ signingSecret: SECRET })).toMatchObject({ code: "invalid_options", message: expect.stringContaining("signingSecret") });
  });

  it("refuses both at once, and an unsigned that is not true", () => {
    expect((thrown({ secret: SECRET, unsigned: true }) as Error).message).toContain("both a secret and unsigned: true");
    expect(isToolloopError(thrown({ unsigned: "yes" }), "invalid_options")).toBe(true);
    expect(isToolloopError(thrown("secret"), "invalid_options")).toBe(true);
    expect(thrown({ secret: SECRET, unsigned: false })).toBe("no error");
    expect(thrown({ unsigned: true, secret: undefined })).toBe("no error");
  });

  it("the types ask for one of the two as well", () => {
    // @ts-expect-error: no default
    expect(() => suspension()).toThrow(/no secret/);
    // @ts-expect-error: a variable that may be unset is not a secret
    expect(() => suspension({ secret: undefined as string | undefined })).toThrow(/got undefined/);
    // @ts-expect-error: one or the other
    expect(() => suspension({ secret: SECRET, unsigned: true })).toThrow(/both/);
  });

  it("the newcomer's payment: with SIGNING_SECRET unset no client is made, so the payment edited from 3 to 9999 is never paid", async () => {
    const env: { SIGNING_SECRET?: string } = {};
    const attempt = async () => editAndApprove(suspension({ secret: env.SIGNING_SECRET! }));
    await expect(attempt()).rejects.toMatchObject({ code: "invalid_options" });
  });

  it("the newcomer's payment: signed, the pending payment edited from 3 to 9999 is refused and nothing is paid", async () => {
    expect(await editAndApprove(suspension({ secret: SECRET }))).toEqual({ outcome: "invalid_decision", paid: [] });
  });

  it("{ unsigned: true } is what unsigned means: the edited payment is paid as it reads then (only for a history nobody else can change)", async () => {
    expect(await editAndApprove(suspension({ unsigned: true }))).toEqual({ outcome: "done", paid: [9999] });
  });
});
