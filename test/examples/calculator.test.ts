// The browser example's calculator tool evaluates model-written arithmetic without eval().
import { describe, expect, it } from "vitest";

// A plain-JS example module without declarations: imported by URL and typed here.
const { calculate } = (await import(new URL("../../examples/browser/calculator.js", import.meta.url).href)) as {
  calculate(expression: string): number;
};

describe("examples/browser/calculator.js", () => {
  it.each([
    ["2 * 12.50 + 1 * 3.20 + 2 * 8.00", 44.2],
    ["1 + 2 * 3", 7],
    ["(1 + 2) * 3", 9],
    ["2 ^ 3 ^ 2", 512], // right-associative
    ["-2 ^ 2", -4], // the power binds tighter than the sign
    ["2 ^ -1", 0.5],
    ["10 - 4 - 3", 3], // left-associative
    ["7 % 4", 3],
    ["0.1 + 0.2", 0.3],
    ["1.5e3 / -(2 + 1)", -500],
    [".5 * 4", 2],
  ])("%s = %d", (expression, expected) => {
    expect(calculate(expression)).toBe(expected);
  });

  it.each([
    ["", "ends too early"],
    ["2 +", "ends too early"],
    ["(1 + 2", "not closed"],
    ["1 + 2)", 'unexpected ")"'],
    ["alert(1)", 'unexpected "a"'],
    ["1 / 0", "not a finite number"],
  ])("rejects %j", (expression, message) => {
    expect(() => calculate(expression)).toThrow(message);
  });
});
