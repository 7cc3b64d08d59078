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
const isConst = (x: unknown) => typeof x === "boolean" || typeof x === "string" || (typeof x === "number" && Number.isFinite(x));
const isCount = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0;
const isNumberType = (t: unknown) => t === "number" || t === "integer";
const finite = (x: unknown) => typeof x === "number" && Number.isFinite(x);
const lower = (cur: unknown, x: number) => (finite(cur) && x <= (cur as number) ? cur : x);
const upper = (cur: unknown, x: number) => (finite(cur) && x >= (cur as number) ? cur : x);
const orNot = (cur: unknown, x: unknown) => (cur !== undefined ? { anyOf: [cur, x] } : x);
const defaulted = (s: Node) => (typeof s.default === "function" ? s.default() : s.default);

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

/** One pipe action; actions with no JSON Schema form are left to valibot's own validation. */
function applyAction(out: Out, a: Node): void {
  const t: string = a.type;
  const req = a.requirement;
  const bound = (key: string, larger: boolean, x: number) => (out[key] = (larger ? lower : upper)(out[key], x));
  // Length-like actions count items on arrays, properties on records, characters otherwise.
  const keys = t.endsWith("entries") ? ["minProperties", "maxProperties"] : out.type === "array" ? ["minItems", "maxItems"] : ["minLength", "maxLength"];
  if (FORMATS[t]) out.format = FORMATS[t];
  else if (req instanceof RegExp && !NO_PATTERN.has(t)) out.pattern ??= req.source;
  else if (t === "starts_with" || t === "ends_with" || t === "includes") {
    const text = escapeRegExp(req);
    out.pattern ??= t === "starts_with" ? `^${text}` : t === "ends_with" ? `${text}$` : text;
  } else if (t === "description" || t === "title") out[t] = a[t];
  else if (t === "base64") out.contentEncoding = "base64";
  else if (t === "integer" || t === "safe_integer") {
    out.type = "integer";
    if (t !== "integer") {
      bound("minimum", true, Number.MIN_SAFE_INTEGER);
      bound("maximum", false, Number.MAX_SAFE_INTEGER);
    }
  } else if (t === "multiple_of") out.multipleOf = req;
  else if (t === "examples" || t === "metadata") {
    const m = t === "examples" ? { examples: a.examples } : a.metadata;
    if (typeof m.title === "string") out.title = m.title;
    if (typeof m.description === "string") out.description = m.description;
    if (Array.isArray(m.examples)) out.examples = Array.isArray(out.examples) ? [...out.examples, ...m.examples] : m.examples;
    for (const k of Object.keys(m)) if (k !== "title" && k !== "description" && k !== "examples" && k !== "__proto__") out[k] = m[k];
  } else if (BOUNDS[t]) {
    if (isNumberType(out.type) && finite(req)) bound(...BOUNDS[t], req);
  } else if (COUNTS[t]) {
    if (!isCount(req)) return;
    if (COUNTS[t] & 1) bound(keys[0]!, true, req);
    if (COUNTS[t] & 2) bound(keys[1]!, false, req);
  } else if (t === "non_empty") bound(keys[0]!, true, 1);
  else if (t === "empty") out[keys[1]!] = 0;
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
      const items = flatten(s.pipe);
      for (const [i, item] of items.entries()) {
        if (i > 0 && (item.kind === "schema" || (item.kind === "transformation" && ENDS_INPUT.has(item.type)))) break;
        if (item.kind === "schema") out = convert(item, path, out, true);
        else applyAction(out, item);
      }
      return out;
    }
    let ok = true;
    switch (s.type) {
      case "boolean":
      case "null":
      case "number":
      case "string":
        out.type = s.type;
        break;
      case "array":
        out.type = "array";
        out.items = convert(s.item, `${path}/items`);
        break;
      case "tuple":
      case "tuple_with_rest":
      case "loose_tuple":
      case "strict_tuple":
        out.type = "array";
        out.items = s.items.map((item: Node, i: number) => convert(item, `${path}/items/${i}`));
        out.minItems = s.items.length;
        if (s.type === "tuple_with_rest") out.additionalItems = convert(s.rest, `${path}/additionalItems`);
        else if (s.type === "strict_tuple") out.additionalItems = false;
        break;
      case "object":
      case "object_with_rest":
      case "loose_object":
      case "strict_object": {
        out.type = "object";
        const properties: Out = (out.properties = {});
        const required: string[] = (out.required = []);
        for (const key in s.entries) {
          const entry = s.entries[key];
          properties[key] = convert(entry, `${path}/properties/${key}`);
          if (entry.type !== "exact_optional" && entry.type !== "nullish" && entry.type !== "optional") required.push(key);
        }
        if (s.type === "object_with_rest") out.additionalProperties = convert(s.rest, `${path}/additionalProperties`);
        else if (s.type === "strict_object") out.additionalProperties = false;
        break;
      }
      case "record":
        ok = s.key.type === "string";
        out.type = "object";
        out.propertyNames = convert(s.key, `${path}/propertyNames`);
        out.additionalProperties = convert(s.value, `${path}/additionalProperties`);
        break;
      case "any":
      case "unknown":
        break;
      case "never":
        out.not = {};
        break;
      case "nullable":
      case "nullish":
        out.anyOf = [convert(s.wrapped, `${path}/anyOf/0`), { type: "null" }];
        if (s.default !== undefined) out.default = defaulted(s);
        break;
      case "exact_optional":
      case "optional":
      case "undefinedable":
        out = convert(s.wrapped, path, out);
        if (s.default !== undefined) out.default = defaulted(s);
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
        const key = s.type === "union" ? "anyOf" : s.type === "variant" ? "oneOf" : "allOf";
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
  if (Object.keys(defs).length) out.$defs = defs;
  return { schema: out };
}
