// ctx.requestInput inside a tool step. A handler that asks a question nobody has answered yet is
// abandoned and the run suspends; its step keeps what it asked. On a replay the handler does not
// run again (it may have had side effects before it asked): the questions it asked are put to
// suspension's asker once more, in the same order, so the call waits exactly as it did, with the
// same pending state and signature. A typed schema (valibot, Standard Schema) cannot be kept in
// a step, so its JSON Schema form is kept and, for each answer the asker checked, the verdict its
// own library gave: the replay answers the asker's check with that verdict, not with a JSON
// Schema that could judge an answer differently (a transform, a custom check).
import { isSchemaInput, type SchemaInput, type StandardJSONSchemaLike, toJSONSchema } from "../../src/schema/index.js";
import type { InputRequest } from "../../src/tools/index.js";

/** What the asker's check of one answer said: it fits, or these issues. */
type Verdict = { ok: true } | { issues: { message: string; path: string[] }[] };

/** One question as a step keeps it. */
export interface AskedQuestion {
  message: string;
  key?: string;
  /** A raw JSON Schema (shown, not enforced), as given. */
  schema?: unknown;
  /** A typed schema's JSON Schema form (null: it has none). */
  typed?: Record<string, unknown> | null;
  /** The asker's check of the answer it had, when it had one. */
  verdict?: Verdict;
}

/** Questions put to ctx.requestInput while a handler runs in a step, recorded as they are asked. */
export interface InputRecorder {
  requestInput(request: InputRequest): Promise<unknown>;
  /** Every question asked so far, in order. */
  readonly asked: AskedQuestion[];
  /** True while a question has no answer yet (the run suspends on it). */
  readonly waiting: boolean;
}

/** Wraps the asker's requestInput, recording each question and the verdict on its answer. */
export function recordInput(ask: (request: InputRequest) => Promise<unknown>): InputRecorder {
  const asked: AskedQuestion[] = [];
  let open = 0;
  return {
    asked,
    get waiting() {
      return open > 0;
    },
    async requestInput(request) {
      const q: AskedQuestion = { message: String(request?.message) };
      if (typeof request?.key === "string") q.key = request.key;
      let schema = request?.schema;
      if (isSchemaInput(schema)) {
        q.typed = jsonForm(schema);
        schema = spy(schema, q);
      } else if (schema !== undefined) {
        q.schema = jsonCopy(schema);
      }
      asked.push(q);
      open++;
      try {
        return await ask({ ...request, schema });
      } finally {
        open--;
      }
    },
  };
}

/**
 * Puts a step's questions to the asker again, all at once and in order (as a handler that asked
 * them in turn, or together, did): it answers those it has answers for and suspends the call on
 * the first it has none for. Resolves only if it answered every one, which a faithful replay
 * never does.
 */
export function replayInput(ask: (request: InputRequest) => Promise<unknown>, asked: readonly AskedQuestion[]): Promise<unknown[]> {
  return Promise.all(
    asked.map((q) => {
      const request: InputRequest = { message: q.message };
      if (q.key !== undefined) request.key = q.key;
      if (q.typed !== undefined) request.schema = verdictSchema(q);
      else if (q.schema !== undefined) request.schema = q.schema;
      return ask(request);
    }),
  );
}

/** A typed schema's JSON Schema form as the asker would make it, or null when it has none. */
function jsonForm(schema: SchemaInput): Record<string, unknown> | null {
  try {
    return jsonCopy(toJSONSchema(schema)) as Record<string, unknown>;
  } catch {
    return null;
  }
}

function jsonCopy(value: unknown): unknown {
  try {
    const json = JSON.stringify(value);
    return json === undefined ? undefined : JSON.parse(json);
  } catch {
    return undefined;
  }
}

/** A Standard Schema that describes itself as `q.typed` (the asker's pending schema comes from it). */
function described(q: AskedQuestion, validate: (value: unknown) => unknown): StandardJSONSchemaLike {
  return {
    "~standard": {
      vendor: "toolloop-workflow",
      validate: validate as StandardJSONSchemaLike["~standard"]["validate"],
      jsonSchema: {
        input() {
          if (!q.typed) throw new Error("the schema has no JSON Schema form");
          return q.typed;
        },
      },
    },
  };
}

/** The schema with its own validation, noting the verdict on each answer checked. */
function spy(schema: SchemaInput, q: AskedQuestion): StandardJSONSchemaLike {
  const validate = (schema as StandardJSONSchemaLike)["~standard"].validate;
  const note = (r: { issues?: readonly { message: string; path?: readonly unknown[] | undefined }[] | undefined }) => {
    q.verdict = r.issues ? { issues: r.issues.map((i) => ({ message: String(i.message), path: (i.path ?? []).map(pathKey) })) } : { ok: true };
    return r;
  };
  return described(q, (value) => {
    const r = validate.call((schema as StandardJSONSchemaLike)["~standard"], value);
    return typeof (r as PromiseLike<unknown>).then === "function" ? Promise.resolve(r).then(note) : note(r as Parameters<typeof note>[0]);
  });
}

/** The schema a replayed question carries: it gives the verdict the real schema gave. */
function verdictSchema(q: AskedQuestion): StandardJSONSchemaLike {
  return described(q, () => {
    const v = q.verdict;
    if (!v) return { issues: [{ message: "the workflow's replay checked an answer its first run did not check" }] };
    return "ok" in v ? { value: undefined } : { issues: v.issues.map((i) => ({ message: i.message, path: i.path })) };
  });
}

/** A path item as toolloop names it (a valibot item's key, or the key itself). */
function pathKey(p: unknown): string {
  return String(typeof p === "object" && p !== null && "key" in p ? (p as { key: unknown }).key : p);
}
