// valibot → JSON Schema (draft-07, the input side of each pipe), written for toolloop so
// that every agent does not ship a general-purpose converter (it was ~4.5 KiB of a minimal
// agent's gzip). valibot schemas describe themselves (`type`, `entries`, `item`, `options`,
// `wrapped`, `pipe`), so a walk over that tree is all it takes. The output matches
// @valibot/to-json-schema 1.8 with { typeMode: "input", errorMode: "ignore" } key for key
// (test/core/valibot-json-schema.test.ts compares the two), except that a schema with no
// JSON Schema form is reported back instead of becoming {}.

type Node = { [key: string]: any };
type Out = { [key: string]: unknown };

/** Where conversion stopped: the first schema with no JSON Schema form and its JSON Pointer. */
export interface Unconvertible {
  type: string;
  path: string;
}

/**
 * Transformations that end the input side of a pipe: what follows them checks the
 * transformed value, which the model never writes.
 */
const ENDS_INPUT = new Set(
  "find_item parse_json raw_transform reduce_items stringify_json to_bigint to_boolean to_date to_number to_string transform".split(" "),
);

const FORMATS: Record<string, string> = {
  email: "email",
  rfc_email: "email",
  ipv4: "ipv4",
  ipv6: "ipv6",
  iso_date: "date",
  iso_date_time: "date-time",
  iso_timestamp: "date-time",
  iso_time: "time",
  url: "uri",
  uuid: "uuid",
};

/** Regex-backed actions the reference converter leaves out (their regexes are not portable patterns). */
const NO_PATTERN = new Set(["ip", "iso_date_time_second", "base64"]);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const finite = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);
const isConst = (x: unknown) => typeof x === "boolean" || typeof x === "string" || finite(x);
const orNot = (cur: unknown, x: unknown) => (cur !== undefined ? { anyOf: [cur, x] } : x);

function intersectEnum(out: Out, values: unknown[]): void {
  const kept = out.enum ? (out.enum as unknown[]).filter((x) => values.includes(x)) : values;
  if (kept.length) out.enum = [...new Set(kept)];
  else {
    delete out.enum;
    out.not = orNot(out.not, {});
  }
}

/** Bound actions: the keyword each sets, and whether the stricter bound is the larger. */
const BOUNDS: Record<string, [string, boolean]> = {
  min_value: ["minimum", true],
  gt_value: ["exclusiveMinimum", true],
  max_value: ["maximum", false],
  lt_value: ["exclusiveMaximum", false],
};

/** Count actions: which of the lower (1) and upper (2) bound each sets. */
const COUNTS: Record<string, number> = { min_length: 1, max_length: 2, length: 3, min_entries: 1, max_entries: 2, entries: 3 };

/** Substring actions: what goes before and after the escaped text in the pattern. */
const AFFIXES: Record<string, [string, string]> = { starts_with: ["^", ""], ends_with: ["", "$"], includes: ["", ""] };

/** Actions that set annotations: each is read as metadata holding its one value. */
const ANNOTATIONS = new Set(["title", "description", "examples", "metadata"]);

/** One pipe action; actions with no JSON Schema form are left to valibot's own validation. */
function applyAction(out: Out, a: Node): void {
  const t: string = a.type;
  const req = a.requirement;
  // A bound already set stays when it is the stricter one.
  const bound = (key: string, larger: boolean, x: number) => {
    const cur = out[key];
    out[key] = finite(cur) ? (larger ? Math.max : Math.min)(cur, x) : x;
  };
  // Length-like actions count items on arrays, properties on records, characters otherwise.
  const counted = t.endsWith("entries") ? "Properties" : out.type === "array" ? "Items" : "Length";
  if (FORMATS[t]) out.format = FORMATS[t];
  else if (req instanceof RegExp && !NO_PATTERN.has(t)) out.pattern ??= req.source;
  else if (AFFIXES[t]) out.pattern ??= AFFIXES[t][0] + escapeRegExp(req) + AFFIXES[t][1];
  else if (ANNOTATIONS.has(t)) {
    const m = t === "metadata" ? a.metadata : { [t]: a[t] };
    if (typeof m.title === "string") out.title = m.title;
    if (typeof m.description === "string") out.description = m.description;
    if (Array.isArray(m.examples)) out.examples = Array.isArray(out.examples) ? [...out.examples, ...m.examples] : m.examples;
    for (const k of Object.keys(m)) if (!ANNOTATIONS.has(k) && k !== "__proto__") out[k] = m[k];
  } else if (t === "base64") out.contentEncoding = "base64";
  else if (t === "integer" || t === "safe_integer") {
    out.type = "integer";
    if (t !== "integer") {
      bound("minimum", true, Number.MIN_SAFE_INTEGER);
      bound("maximum", false, Number.MAX_SAFE_INTEGER);
    }
  } else if (t === "multiple_of") out.multipleOf = req;
  else if (BOUNDS[t]) {
    if ((out.type === "number" || out.type === "integer") && finite(req)) bound(...BOUNDS[t], req);
  } else if (COUNTS[t]) {
    if (!Number.isInteger(req) || req < 0) return;
    if (COUNTS[t] & 1) bound(`min${counted}`, true, req);
    if (COUNTS[t] & 2) bound(`max${counted}`, false, req);
  } else if (t === "non_empty") bound(`min${counted}`, true, 1);
  else if (t === "empty") out[`max${counted}`] = 0;
  else if (t === "value") {
    if (isConst(req) && (!("const" in out) || out.const === req)) out.const = req;
  } else if (t === "values" || t === "not_values") {
    if (!(req as unknown[]).every(isConst)) return;
    if (t === "values") intersectEnum(out, req);
    else if (req.length) out.not = orNot(out.not, { enum: [...new Set(req)] });
  } else if (t === "not_value") {
    if (isConst(req)) out.not = orNot(out.not, { const: req });
  }
}

const flatten = (pipe: Node[]): Node[] => pipe.flatMap((item) => (item.pipe ? flatten(item.pipe) : [item]));

/** The keyword each combination of schemas becomes. */
const COMBINATIONS: Record<string, string> = { union: "anyOf", variant: "oneOf", intersect: "allOf" };

/** The JSON Schema of a valibot schema's input, and the first part of it that has no JSON Schema form. */
export function valibotToJSONSchema(schema: unknown): { schema: Out; unconvertible?: Unconvertible } {
  // lazy() getters already called, and the $defs id of each schema reached through one.
  const getters = new Map<unknown, Node>();
  const refs = new Map<Node, string>();
  const defs: Record<string, Out> = {};
  let unconvertible: Unconvertible | undefined;

  const convert = (s: Node, path: string, out: Out = {}, skipRef = false): Out => {
    const ref = skipRef ? undefined : refs.get(s);
    if (ref !== undefined) {
      out.$ref = `#/$defs/${ref}`;
      return out;
    }
    if (s.pipe) {
      // The first item is the schema the pipe starts from; a later schema, or a transformation
      // that ends the input side, stops the walk.
      const [head, ...actions] = flatten(s.pipe);
      out = convert(head!, path, out, true);
      for (const item of actions) {
        if (item.kind === "schema" || (item.kind === "transformation" && ENDS_INPUT.has(item.type))) break;
        applyAction(out, item);
      }
      return out;
    }
    // `key` of `out` set to the schema of `child`, whose path is one step further.
    const put = (key: string, child: Node) => (out[key] = convert(child, `${path}/${key}`));
    // The rest of a `..._with_rest` object or tuple, or false for a strict one.
    const rest = (key: string) => (s.rest ? put(key, s.rest) : s.type.startsWith("strict") && (out[key] = false));
    let ok = true;
    // Loose, strict and with-rest objects and tuples differ only in `rest`.
    switch (s.type.replace(/^(loose|strict)_|_with_rest$/, "")) {
      case "boolean":
      case "null":
      case "number":
      case "string":
        out.type = s.type;
        break;
      case "array":
        out.type = "array";
        put("items", s.item);
        break;
      case "tuple":
        out.type = "array";
        out.items = s.items.map((item: Node, i: number) => convert(item, `${path}/items/${i}`));
        out.minItems = s.items.length;
        rest("additionalItems");
        break;
      case "object": {
        out.type = "object";
        const properties: Out = (out.properties = {});
        const required: string[] = (out.required = []);
        for (const key in s.entries) {
          const entry = s.entries[key];
          properties[key] = convert(entry, `${path}/properties/${key}`);
          if (entry.type !== "exact_optional" && entry.type !== "nullish" && entry.type !== "optional") required.push(key);
        }
        rest("additionalProperties");
        break;
      }
      case "record":
        ok = s.key.type === "string";
        out.type = "object";
        put("propertyNames", s.key);
        put("additionalProperties", s.value);
        break;
      case "any":
      case "unknown":
        break;
      case "never":
        out.not = {};
        break;
      case "nullable":
      case "nullish":
      case "exact_optional":
      case "optional":
      case "undefinedable":
        if (s.type.startsWith("null")) out.anyOf = [convert(s.wrapped, `${path}/anyOf/0`), { type: "null" }];
        else out = convert(s.wrapped, path, out);
        if (s.default !== undefined) out.default = typeof s.default === "function" ? s.default() : s.default;
        break;
      case "literal":
        if ((ok = isConst(s.literal))) out.const = s.literal;
        break;
      case "enum":
      case "picklist": {
        const options: unknown[] = s.options;
        if (!(ok = options.every((o) => typeof o === "string" || finite(o)))) break;
        out.enum = options;
        const strings = options.filter((o) => typeof o === "string").length;
        out.type = strings === options.length ? "string" : strings === 0 ? "number" : ["string", "number"];
        break;
      }
      case "union":
      case "variant":
      case "intersect": {
        const key = COMBINATIONS[s.type]!;
        out[key] = s.options.map((o: Node, i: number) => convert(o, `${path}/${key}/${i}`));
        break;
      }
      case "lazy": {
        let target = getters.get(s.getter);
        if (!target) getters.set(s.getter, (target = s.getter(undefined) as Node));
        let id = refs.get(target);
        if (id === undefined) {
          refs.set(target, (id = String(refs.size)));
          defs[id] = convert(target, `/$defs/${id}`, {}, true);
        }
        out.$ref = `#/$defs/${id}`;
        break;
      }
      default:
        ok = false;
    }
    if (!ok) unconvertible ??= { type: s.type, path };
    return out;
  };

  const out = convert(schema as Node, "");
  if (unconvertible) return { schema: out, unconvertible };
  if (refs.size) out.$defs = defs;
  return { schema: out };
}
