// externalTool(): a tool the loop never runs itself. Its calls suspend the run, and the
// output arrives as a decision ({ callId, output }): a tool in the user's browser while the
// loop runs on a server, a person, another service.
import { InvalidToolError } from "./errors.js";
import { isSchemaInput, toJSONSchema, type JSONSchema, type SchemaInput } from "./schema.js";
import type { Tool } from "./tool.js";

export interface ExternalToolOptions {
  name: string;
  description: string;
  /** valibot, Standard Schema, or a raw JSON Schema object: what the model is told to send. */
  input: SchemaInput | { [key: string]: unknown };
}

export function externalTool(options: ExternalToolOptions): Tool {
  const { input } = options;
  // Nothing is validated here (the loop never runs it); a raw JSON Schema is sent as it is.
  const parameters: JSONSchema = isSchemaInput(input) ? toJSONSchema(input, options.name) : { ...input };
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
