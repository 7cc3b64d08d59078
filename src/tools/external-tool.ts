// externalTool(): a tool the loop never runs itself. Its calls suspend the run, and the
// output arrives as a decision ({ callId, output }): a tool in the user's browser while the
// loop runs on a server, a person, another service.
import { checkOptions, InvalidToolError } from "../base/index.js";
import { isSchemaInput, type JSONSchema, type SchemaInput, schemaProblem, toJSONSchema } from "../schema/index.js";
import { checkDescription } from "./describe.js";
import type { Tool } from "./tool.js";

export interface ExternalToolOptions {
  name: string;
  description: string;
  /** valibot, Standard Schema, or a raw JSON Schema object: what the model is told to send. */
  input: SchemaInput | { [key: string]: unknown };
}

export function externalTool(options: ExternalToolOptions): Tool {
  checkOptions("externalTool()", options, "name description input");
  const { input } = options;
  checkDescription(options.name, options.description);
  // Nothing is validated here (the loop never runs it); a raw JSON Schema is sent as it is,
  // so it is checked against the meta-schema first, as jsonTool()'s is.
  const raw = !isSchemaInput(input);
  const parameters: JSONSchema = raw ? { ...input } : toJSONSchema(input, options.name);
  const problem = raw && schemaProblem(parameters);
  if (problem) throw new InvalidToolError(`tool "${options.name}": \`input\` is not a valid JSON Schema: ${problem}`);
  delete parameters.$schema;
  if (parameters.type !== "object") throw new InvalidToolError(`tool "${options.name}": the input schema must describe an object`);
  return {
    name: options.name,
    description: options.description,
    parameters,
    external: true,
    call: async () => {
      throw new Error(`${options.name} is an external tool: its output comes as a decision`);
    },
  };
}
