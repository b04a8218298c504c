/**
 * Arguments checked against a contract's input schema (JSON Schema 2020-12, ajv), compiled once.
 * A refusal names where, as a JSON path into the arguments (`$.max_words`), most relevant first.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";

const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });

/** `/a/0/b~1c` as `$.a[0]["b/c"]`. */
export function jsonPath(pointer: string): string {
  if (pointer === "") return "$";
  return "$" + pointer
    .slice(1)
    .split("/")
    .map((raw) => raw.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((key) => (/^\d+$/.test(key) ? `[${key}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`))
    .join("");
}

function described(error: ErrorObject): { path: string; text: string } {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required") {
    const child = String(params["missingProperty"]);
    return { path: jsonPath(`${error.instancePath}/${child.replace(/~/g, "~0").replace(/\//g, "~1")}`), text: "is required" };
  }
  if (error.keyword === "additionalProperties") {
    const extra = String(params["additionalProperty"]);
    return { path: jsonPath(`${error.instancePath}/${extra.replace(/~/g, "~0").replace(/\//g, "~1")}`), text: "is not allowed" };
  }
  return { path: jsonPath(error.instancePath), text: error.message ?? error.keyword };
}

/** One refusal: where (a JSON path into the arguments) and what is wrong there. */
export interface Violation {
  readonly path: string;
  readonly text: string;
}

/** A validator compiled once from a schema. */
export class SchemaValidator {
  private readonly check: ValidateFunction;

  constructor(schema: object) {
    this.check = ajv.compile(schema);
  }

  /** Every violation of `value`, the deepest first (the most specific place); none when it is valid. */
  violations(value: unknown): Violation[] {
    if (this.check(value)) return [];
    const found = (this.check.errors ?? []).map(described);
    return found.sort((a, b) => b.path.length - a.path.length);
  }
}
