// A small YAML reader for tests only: enough of YAML 1.2 for the OpenAI OpenAPI document
// and the VCR cassettes (block mappings and sequences, plain / quoted / block scalars,
// flow collections, comments). No anchors, tags, complex keys or multiple documents:
// it throws on what it does not understand rather than guessing.

interface Line {
  indent: number;
  text: string; // without the indentation
  no: number; // 1-based, for errors
}

export function parseYAML(source: string): unknown {
  const raw = source.replace(/\r\n?/g, "\n").split("\n");
  const docEnd = raw.indexOf("...");
  if (docEnd >= 0) raw.length = docEnd; // "..." ends the (single) document
  const lines: Line[] = raw.map((l, i) => {
    const indent = l.length - l.replace(/^ +/, "").length;
    return { indent, text: l.slice(indent), no: i + 1 };
  });
  const p = new Parser(lines);
  const value = p.document();
  return value;
}

function isBlank(l: Line): boolean {
  return l.text.trim() === "" || l.text.startsWith("#");
}

class Parser {
  private i = 0;
  constructor(private readonly lines: Line[]) {}

  document(): unknown {
    this.skipBlank();
    if (this.lines[this.i]?.text.startsWith("---")) this.i++;
    const first = this.peek();
    if (!first) return null;
    const v = this.block(first.indent);
    this.skipBlank();
    if (this.i < this.lines.length) this.fail(this.lines[this.i]!, "unexpected content");
    return v;
  }

  private fail(line: Line, why: string): never {
    throw new SyntaxError(`yaml line ${line.no}: ${why}: ${JSON.stringify(line.text.slice(0, 60))}`);
  }

  private skipBlank(): void {
    while (this.i < this.lines.length && isBlank(this.lines[this.i]!)) this.i++;
  }

  private peek(): Line | undefined {
    this.skipBlank();
    return this.lines[this.i];
  }

  /** A block node whose first line is at exactly `indent`. */
  private block(indent: number): unknown {
    const line = this.peek()!;
    if (isSeqItem(line.text)) return this.sequence(indent);
    if (mappingKey(line.text) !== undefined) return this.mapping(indent);
    // a lone scalar as a block (e.g. the value of "key:" on the next line)
    this.i++;
    return this.scalarFrom(line, line.text, indent - 1);
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      const line = this.peek();
      if (!line || line.indent !== indent || !isSeqItem(line.text)) break;
      const rest = line.text.slice(1);
      const spaces = rest.length - rest.replace(/^ +/, "").length;
      const content = rest.slice(spaces);
      if (content === "" || content.startsWith("#")) {
        this.i++;
        const next = this.peek();
        out.push(next && next.indent > indent ? this.block(next.indent) : null);
        continue;
      }
      if (isSeqItem(content) || mappingKey(content) !== undefined) {
        // "- key: v" / "- - x": the item is a block starting at the content's column.
        line.indent = indent + 1 + spaces;
        line.text = content;
        out.push(this.block(line.indent));
        continue;
      }
      this.i++;
      out.push(this.scalarFrom(line, content, indent));
    }
    return out;
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (;;) {
      const line = this.peek();
      if (!line || line.indent !== indent || isSeqItem(line.text)) break;
      const key = mappingKey(line.text);
      if (key === undefined) this.fail(line, "expected a mapping key");
      if (Object.hasOwn(out, key.key)) this.fail(line, `duplicate key ${key.key}`);
      const rest = line.text.slice(key.end).trim();
      this.i++;
      if (rest === "" || rest.startsWith("#")) {
        const next = this.peek();
        if (next && next.indent > indent) out[key.key] = this.block(next.indent);
        else if (next && next.indent === indent && isSeqItem(next.text)) out[key.key] = this.sequence(indent);
        else out[key.key] = null;
      } else {
        out[key.key] = this.scalarFrom(line, rest, indent);
      }
    }
    return out;
  }

  /** A scalar (or flow collection) that starts in `text` on `line`; continuation lines are indented past `parent`. */
  private scalarFrom(line: Line, text: string, parent: number): unknown {
    const c = text[0];
    if (c === "|" || c === ">") return this.blockScalar(line, text, parent);
    if (c === "[" || c === "{") {
      let src = text;
      while (!balanced(src)) {
        const next = this.lines[this.i];
        if (!next) this.fail(line, "unclosed flow collection");
        src += "\n" + next.text;
        this.i++;
      }
      return new Flow(src, line.no).parse();
    }
    if (c === '"' || c === "'") {
      let src = text;
      while (closingQuote(src, c) < 0) {
        const next = this.lines[this.i];
        if (!next) this.fail(line, "unclosed quoted scalar");
        src += "\n" + " ".repeat(next.indent) + next.text;
        this.i++;
      }
      const end = closingQuote(src, c);
      const after = src.slice(end + 1).trim();
      if (after !== "" && !after.startsWith("#")) this.fail(line, "text after a quoted scalar");
      return c === '"' ? unescapeDouble(fold(src.slice(1, end), true)) : fold(src.slice(1, end), false).replace(/''/g, "'");
    }
    // plain scalar, possibly continued on more-indented lines
    const parts = [stripComment(text)];
    let blanks = 0;
    while (this.i < this.lines.length) {
      const next = this.lines[this.i]!;
      if (next.text.trim() === "") {
        blanks++;
        this.i++;
        continue;
      }
      if (next.indent <= parent || next.text.startsWith("#")) break;
      if (mappingKey(next.text) !== undefined) this.fail(next, "a mapping key inside a plain scalar");
      parts.push(blanks > 0 ? "\n".repeat(blanks) : " ", stripComment(next.text));
      blanks = 0;
      this.i++;
    }
    // blank lines we consumed after the scalar belong to nobody; step back over them
    this.i -= blanks;
    return plain(parts.join(""));
  }

  private blockScalar(line: Line, header: string, parent: number): string {
    const m = /^([|>])([-+]?)([1-9]?)([-+]?)\s*(#.*)?$/.exec(header);
    if (!m) this.fail(line, "bad block scalar header");
    const literal = m[1] === "|";
    const chomp = m[2] || m[4] || "";
    const explicit = m[3] ? parent + Number(m[3]) : undefined;
    const body: string[] = [];
    let contentIndent = explicit;
    while (this.i < this.lines.length) {
      const l = this.lines[this.i]!;
      const full = " ".repeat(l.indent) + l.text;
      if (l.text.trim() === "") {
        body.push(full);
        this.i++;
        continue;
      }
      if (contentIndent === undefined) {
        if (l.indent <= parent) break;
        contentIndent = l.indent;
      }
      if (l.indent < contentIndent) break;
      body.push(full);
      this.i++;
    }
    // trailing blank lines: kept for "+" chomping, otherwise given back
    // (a whitespace-only line longer than the content indentation is content: spaces)
    const ci = contentIndent ?? Math.max(parent + 1, ...body.map((l) => l.length));
    let end = body.length;
    while (end > 0 && body[end - 1]!.length <= ci && body[end - 1]!.trim() === "") end--;
    const trailing = body.length - end;
    const content = body.slice(0, end).map((l) => (l.trim() === "" && l.length <= ci ? "" : l.slice(ci)));
    let text = literal ? content.join("\n") : foldBlock(content);
    if (end === 0) text = "";
    if (chomp === "-") return text;
    if (chomp === "+") return text + (end > 0 ? "\n" : "") + "\n".repeat(trailing);
    return end > 0 ? text + "\n" : "";
  }
}

function isSeqItem(text: string): boolean {
  return text === "-" || text.startsWith("- ");
}

/** The key of a "key: value" line and where the value starts, if the line is one. */
function mappingKey(text: string): { key: string; end: number } | undefined {
  const c = text[0];
  if (c === '"' || c === "'") {
    const close = closingQuote(text, c);
    if (close < 0 || text[close + 1] !== ":" || !(text.length === close + 2 || text[close + 2] === " ")) return undefined;
    const inner = text.slice(1, close);
    return { key: c === '"' ? unescapeDouble(inner) : inner.replace(/''/g, "'"), end: close + 2 };
  }
  if (c === "[" || c === "{" || c === "#" || c === "|" || c === ">" || (c === "-" && text[1] === " ")) return undefined;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === ":" && (i + 1 === text.length || text[i + 1] === " ")) return { key: text.slice(0, i).trim(), end: i + 1 };
    if (text[i] === " " && text[i + 1] === "#") return undefined;
  }
  return undefined;
}

function stripComment(text: string): string {
  const i = text.search(/(^|\s)#/);
  return (i < 0 ? text : text.slice(0, i)).trimEnd();
}

function closingQuote(src: string, q: string): number {
  for (let i = 1; i < src.length; i++) {
    const ch = src[i];
    if (q === '"' && ch === "\\") {
      i++;
      continue;
    }
    if (ch === q) {
      if (q === "'" && src[i + 1] === "'") {
        i++;
        continue;
      }
      return i;
    }
  }
  return -1;
}

/** Line folding inside quoted scalars: one break → space, n blank lines → n newlines. */
function fold(inner: string, double: boolean): string {
  const lines = inner.split("\n");
  if (lines.length === 1) return inner;
  let out = lines[0]!.replace(/[ \t]+$/, (s) => (double && /\\$/.test(lines[0]!.slice(0, -s.length)) ? s : ""));
  let blanks = 0;
  for (let k = 1; k < lines.length; k++) {
    const last = k === lines.length - 1;
    let l = lines[k]!.replace(/^[ \t]+/, "");
    if (!last) l = l.replace(/[ \t]+$/, "");
    if (l === "" && !last) {
      blanks++;
      continue;
    }
    if (blanks > 0) out += "\n".repeat(blanks);
    else if (double && /(^|[^\\])(\\\\)*\\$/.test(out)) out = out.slice(0, -1);
    else out += " ";
    out += l;
    blanks = 0;
  }
  return out;
}

function unescapeDouble(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_, e: string) => {
    switch (e[0]) {
      case "n":
        return "\n";
      case "t":
        return "\t";
      case "r":
        return "\r";
      case "0":
        return "\0";
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "e":
        return "\x1b";
      case " ":
        return " ";
      case "_":
        return "\u00a0";
      case "N":
        return "\u0085";
      case "x":
      case "u":
      case "U":
        return String.fromCodePoint(parseInt(e.slice(1), 16));
      default:
        return e; // \" \\ \/
    }
  });
}

function foldBlock(lines: string[]): string {
  let out = "";
  let first = true;
  let blanks = 0;
  let prevMore = false;
  for (const l of lines) {
    if (l === "") {
      blanks++;
      continue;
    }
    const more = l.startsWith(" ") || l.startsWith("\t");
    if (first) out += "\n".repeat(blanks);
    else if (blanks > 0) out += "\n".repeat(blanks + (prevMore || more ? 1 : 0));
    else out += prevMore || more ? "\n" : " ";
    out += l;
    blanks = 0;
    first = false;
    prevMore = more;
  }
  return out;
}

/** Resolves a plain scalar with the YAML 1.2 core schema. */
function plain(s: string): unknown {
  if (s === "" || s === "~" || /^(null|Null|NULL)$/.test(s)) return null;
  if (/^(true|True|TRUE)$/.test(s)) return true;
  if (/^(false|False|FALSE)$/.test(s)) return false;
  if (/^[-+]?[0-9]+$/.test(s)) return Number(s);
  if (/^0x[0-9a-fA-F]+$/.test(s)) return parseInt(s.slice(2), 16);
  if (/^0o[0-7]+$/.test(s)) return parseInt(s.slice(2), 8);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(s)) return Number(s);
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s)) return s.startsWith("-") ? -Infinity : Infinity;
  if (/^\.(nan|NaN|NAN)$/.test(s)) return NaN;
  return s;
}

function balanced(src: string): boolean {
  let depth = 0;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (ch === '"' || ch === "'") {
      const close = closingQuote(src.slice(i), ch);
      if (close < 0) return false;
      i += close;
    } else if (ch === "[" || ch === "{") depth++;
    else if (ch === "]" || ch === "}") depth--;
    if (depth === 0) return true;
  }
  return depth === 0;
}

/** Flow collections: [a, b], {k: v}, nested, quoted. */
class Flow {
  private i = 0;
  constructor(
    private readonly src: string,
    private readonly line: number,
  ) {}

  parse(): unknown {
    const v = this.value();
    this.ws();
    const rest = this.src.slice(this.i).trim();
    if (rest !== "" && !rest.startsWith("#")) this.fail("text after a flow collection");
    return v;
  }

  private fail(why: string): never {
    throw new SyntaxError(`yaml line ${this.line}: ${why} in ${JSON.stringify(this.src.slice(0, 60))}`);
  }

  private ws(): void {
    while (this.i < this.src.length && /\s/.test(this.src[this.i]!)) this.i++;
  }

  private value(): unknown {
    this.ws();
    const c = this.src[this.i];
    if (c === "[") {
      this.i++;
      const out: unknown[] = [];
      for (;;) {
        this.ws();
        if (this.src[this.i] === "]") {
          this.i++;
          return out;
        }
        out.push(this.value());
        this.ws();
        if (this.src[this.i] === ",") this.i++;
        else if (this.src[this.i] !== "]") this.fail("expected , or ]");
      }
    }
    if (c === "{") {
      this.i++;
      const out: Record<string, unknown> = {};
      for (;;) {
        this.ws();
        if (this.src[this.i] === "}") {
          this.i++;
          return out;
        }
        const key = this.value();
        this.ws();
        let v: unknown = null;
        if (this.src[this.i] === ":") {
          this.i++;
          v = this.value();
        }
        out[String(key)] = v;
        this.ws();
        if (this.src[this.i] === ",") this.i++;
        else if (this.src[this.i] !== "}") this.fail("expected , or }");
      }
    }
    if (c === '"' || c === "'") {
      const close = closingQuote(this.src.slice(this.i), c);
      if (close < 0) this.fail("unclosed quote");
      const inner = this.src.slice(this.i + 1, this.i + close);
      this.i += close + 1;
      return c === '"' ? unescapeDouble(fold(inner, true)) : fold(inner, false).replace(/''/g, "'");
    }
    const start = this.i;
    while (this.i < this.src.length) {
      const ch = this.src[this.i]!;
      if (ch === "," || ch === "]" || ch === "}") break;
      if (ch === ":" && /[\s,\]}]/.test(this.src[this.i + 1] ?? " ")) break;
      this.i++;
    }
    return plain(
      this.src
        .slice(start, this.i)
        .trim()
        .replace(/\s*\n\s*/g, " "),
    );
  }
}
