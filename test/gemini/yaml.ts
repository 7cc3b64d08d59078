// A minimal block-YAML reader for the VCR cassettes in test/fixtures/gemini (no YAML
// parser is installed). It covers what those files use: indentation-based mappings and
// sequences (including `key:` followed by `- item` at the same indentation), plain /
// single-quoted / double-quoted scalars that may span lines (with YAML's line folding),
// `|` and `|-` block scalars, and the empty flow collections `{}` and `[]`. Its output is
// checked against the extracted .sse / .response.json files in yaml.test.ts.

interface Line {
  indent: number;
  text: string; // without the indentation
}

export function parseYaml(source: string): unknown {
  const lines: Line[] = source
    .replace(/\r\n/g, "\n")
    .split("\n")
    .map((raw) => ({ indent: raw.length - raw.trimStart().length, text: raw.trimStart() }));
  const p = { lines, i: 0 };
  skipBlank(p);
  return parseNode(p, 0);
}

interface State {
  lines: Line[];
  i: number;
}

function skipBlank(p: State): void {
  while (p.i < p.lines.length && (p.lines[p.i]!.text === "" || p.lines[p.i]!.text.startsWith("#"))) p.i++;
}

function parseNode(p: State, indent: number): unknown {
  skipBlank(p);
  const line = p.lines[p.i];
  if (!line || line.indent < indent) return null;
  if (line.text === "-" || line.text.startsWith("- ")) return parseSequence(p, line.indent);
  return parseMapping(p, line.indent);
}

function parseSequence(p: State, indent: number): unknown[] {
  const out: unknown[] = [];
  for (;;) {
    skipBlank(p);
    const line = p.lines[p.i];
    if (!line || line.indent !== indent || !(line.text === "-" || line.text.startsWith("- "))) return out;
    const rest = line.text === "-" ? "" : line.text.slice(2);
    if (rest.trim() === "") {
      p.i++;
      out.push(parseNode(p, indent + 1));
      continue;
    }
    // The item's content starts two columns further in: parse it as if it were its own line.
    const inner = indent + 2 + (rest.length - rest.trimStart().length);
    p.lines[p.i] = { indent: inner, text: rest.trimStart() };
    if (rest.trimStart().startsWith("- ")) out.push(parseSequence(p, inner));
    else if (isMappingLine(rest.trimStart())) out.push(parseMapping(p, inner));
    else out.push(parseScalarAt(p, inner, rest.trimStart(), indent));
  }
}

function parseMapping(p: State, indent: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (;;) {
    skipBlank(p);
    const line = p.lines[p.i];
    if (!line || line.indent !== indent || line.text.startsWith("- ") || !isMappingLine(line.text)) return out;
    const { key, rest } = splitKey(line.text);
    if (rest === "") {
      p.i++;
      skipBlank(p);
      const next = p.lines[p.i];
      if (next && (next.indent > indent || (next.indent === indent && (next.text === "-" || next.text.startsWith("- "))))) {
        out[key] = parseNode(p, next.indent);
      } else out[key] = null;
    } else out[key] = parseScalarAt(p, indent, rest, indent);
  }
}

function isMappingLine(text: string): boolean {
  if (text.startsWith("'") || text.startsWith('"')) return /^(['"]).*?\1:(\s|$)/.test(text);
  return /^[^\s:][^:]*?:(\s|$)/.test(text) && !text.startsWith("{") && !text.startsWith("[");
}

function splitKey(text: string): { key: string; rest: string } {
  if (text.startsWith("'") || text.startsWith('"')) {
    const q = text[0]!;
    let j = 1;
    while (j < text.length && !(text[j] === q && text[j + 1] !== q)) j += text[j] === q ? 2 : 1;
    const key = q === "'" ? text.slice(1, j).replace(/''/g, "'") : (JSON.parse(text.slice(0, j + 1)) as string);
    return { key, rest: text.slice(j + 2).trim() };
  }
  const m = /^([^:]*?):(\s+|$)(.*)$/.exec(text)!;
  return { key: m[1]!, rest: m[3]!.trim() };
}

/** A scalar whose text starts at `rest` on line p.i; `parent` is the indentation of the key or dash. */
function parseScalarAt(p: State, _indent: number, rest: string, parent: number): unknown {
  if (rest === "{}") return (p.i++, {});
  if (rest === "[]") return (p.i++, []);
  if (/^[|>][-+]?$/.test(rest)) return parseBlockScalar(p, rest, parent);
  if (rest.startsWith("'") || rest.startsWith('"')) return parseQuoted(p, rest);
  // plain scalar, possibly continued on more-indented lines
  let text = rest;
  p.i++;
  while (p.i < p.lines.length && p.lines[p.i]!.indent > parent && p.lines[p.i]!.text !== "" && !isMappingLine(p.lines[p.i]!.text)) {
    text += " " + p.lines[p.i]!.text;
    p.i++;
  }
  return plain(text.replace(/\s+#.*$/, ""));
}

function plain(s: string): unknown {
  if (s === "null" || s === "~") return null;
  if (s === "true") return true;
  if (s === "false") return false;
  if (/^[-+]?\d+$/.test(s)) return Number(s);
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return Number(s);
  return s;
}

function parseBlockScalar(p: State, header: string, parent: number): string {
  const chomp = header.slice(1);
  const folded = header.startsWith(">");
  p.i++;
  const body: string[] = [];
  let blockIndent: number | undefined;
  while (p.i < p.lines.length) {
    const l = p.lines[p.i]!;
    if (l.text !== "" && l.indent <= parent) break;
    if (l.text !== "") blockIndent ??= l.indent;
    body.push(l.text === "" ? "" : " ".repeat(l.indent - (blockIndent ?? l.indent)) + l.text);
    p.i++;
  }
  while (body.length && body[body.length - 1] === "") body.pop();
  let text = folded ? body.join(" ") : body.join("\n");
  if (chomp !== "-") text += "\n";
  return text;
}

function parseQuoted(p: State, first: string): string {
  const q = first[0]!;
  // gather raw text up to the closing quote, across lines
  let raw = first.slice(1);
  const pieces: string[] = [];
  for (;;) {
    const end = closingQuote(raw, q);
    if (end >= 0) {
      pieces.push(raw.slice(0, end));
      p.i++;
      break;
    }
    pieces.push(raw);
    p.i++;
    raw = p.lines[p.i]!.text;
  }
  // fold: one line break becomes a space, n empty lines become n newlines; in double
  // quotes a line ending in an unescaped backslash joins the next line directly
  const n = pieces.length;
  const trimmed = pieces.map((s, k) => {
    let t = k > 0 ? s.trimStart() : s;
    if (k < n - 1) t = t.replace(/[ \t]+$/, "");
    return t;
  });
  let out = trimmed[0]!;
  for (let k = 1; k < n; k++) {
    let empties = 0;
    while (k < n - 1 && trimmed[k] === "") {
      empties++;
      k++;
    }
    const backslashes = /\\*$/.exec(out)![0].length;
    if (q === '"' && backslashes % 2 === 1) out = out.slice(0, -1);
    else out += empties ? "\n".repeat(empties) : " ";
    out += trimmed[k];
  }
  return q === "'" ? out.replace(/''/g, "'") : unescapeDouble(out);
}

function closingQuote(s: string, q: string): number {
  for (let j = 0; j < s.length; j++) {
    if (q === '"' && s[j] === "\\") {
      j++;
      continue;
    }
    if (s[j] === q) {
      if (q === "'" && s[j + 1] === "'") {
        j++;
        continue;
      }
      return j;
    }
  }
  return -1;
}

function unescapeDouble(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_, e: string) => {
    switch (e[0]) {
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "0":
        return "\0";
      case "x":
      case "u":
      case "U":
        return String.fromCodePoint(parseInt(e.slice(1), 16));
      case "N":
        return "\u0085";
      case "_":
        return "\u00a0";
      default:
        return e; // \\ \" \/ \ (space)
    }
  });
}
