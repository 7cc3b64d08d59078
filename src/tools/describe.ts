// The one check every way of making a tool shares: a description the model can pick it by.
import { InvalidToolError } from "../base/index.js";

/**
 * The model picks a tool by its description: one without a description (or a blank one)
 * would be sent without one, and called at random or never. tool(), jsonTool() and
 * externalTool() check it when the tool is built, setTools for hand-written tools.
 */
export function checkDescription(name: string, description: unknown): void {
  if (typeof description !== "string" || description.trim() === "") {
    throw new InvalidToolError(`tool "${name}" needs a description: what it does and when to call it, e.g. "Current temperature for a city."`);
  }
}
