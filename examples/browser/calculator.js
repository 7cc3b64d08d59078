// A calculator for the model: + - * / % ^, parentheses and unary minus over decimal numbers.
// A small recursive-descent parser, because eval() of model output is never an option.

/** Evaluates an arithmetic expression; throws an Error naming the problem. */
export function calculate(expression) {
  const tokens = expression.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+|[-+*/%^()]|\S/gi) ?? [];
  let pos = 0;
  const peek = () => tokens[pos];
  const take = () => tokens[pos++];

  // sum := product (("+" | "-") product)*
  const sum = () => {
    let value = product();
    while (peek() === "+" || peek() === "-") value = take() === "+" ? value + product() : value - product();
    return value;
  };
  // product := unary (("*" | "/" | "%") unary)*
  const product = () => {
    let value = unary();
    while (peek() === "*" || peek() === "/" || peek() === "%") {
      const op = take();
      const right = unary();
      value = op === "*" ? value * right : op === "/" ? value / right : value % right;
    }
    return value;
  };
  // unary := ("-" | "+") unary | power      (so -2^2 is -(2^2), as in math)
  const unary = () => {
    if (peek() === "-") return (take(), -unary());
    if (peek() === "+") return (take(), unary());
    return power();
  };
  // power := atom ("^" unary)?      (right-associative; 2^-1 is allowed)
  const power = () => {
    const base = atom();
    return peek() === "^" ? (take(), base ** unary()) : base;
  };
  const atom = () => {
    const t = take();
    if (t === undefined) throw new Error("the expression ends too early");
    if (t === "(") {
      const value = sum();
      if (take() !== ")") throw new Error("a ( is not closed");
      return value;
    }
    const n = Number(t);
    if (!Number.isFinite(n)) throw new Error(`unexpected "${t}"`);
    return n;
  };

  const value = sum();
  if (pos < tokens.length) throw new Error(`unexpected "${tokens[pos]}"`);
  if (!Number.isFinite(value)) throw new Error("the result is not a finite number");
  // Round away binary noise (0.1 + 0.2) without hiding real precision.
  return Number.parseFloat(value.toPrecision(12));
}
