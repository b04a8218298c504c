/**
 * The contract's template language: literal text with `{name}` placeholders, `{{` and `}}` for
 * literal braces, `{$}` for the whole value rendered, `{name|json}` for a value as JSON. A string
 * value is inserted as it is, any other value as JSON (`dumps`).
 */
import { dumps } from "./json.js";

export const WHOLE = "$";
const FIELD = /^([A-Za-z_][A-Za-z0-9_]*|\$)(\|json)?$/;

/** A template is not valid: an unbalanced brace or a placeholder that is not a name. */
export class TemplateSyntaxError extends Error {
  constructor(readonly template: string, readonly detail: string) {
    super(`invalid template ${JSON.stringify(template)}: ${detail}`);
    this.name = "TemplateSyntaxError";
  }
}

/** A placeholder names a value the render was not given. */
export class MissingValueError extends Error {
  constructor(readonly field: string) {
    super(`no value for {${field}}`);
    this.name = "MissingValueError";
  }
}

export function formatValue(value: unknown): string {
  return typeof value === "string" ? value : dumps(value);
}

/** A parsed template; parse once, render many times. */
export class Template {
  readonly fields: readonly string[];
  private readonly literals: readonly string[];
  private readonly asJson: readonly boolean[];

  constructor(readonly source: string) {
    const literals: string[] = [];
    const fields: string[] = [];
    const asJson: boolean[] = [];
    let buf = "";
    let i = 0;
    while (i < source.length) {
      const ch = source[i];
      if (ch === "{") {
        if (source.startsWith("{{", i)) {
          buf += "{";
          i += 2;
          continue;
        }
        const end = source.indexOf("}", i + 1);
        if (end < 0) throw new TemplateSyntaxError(source, `unclosed '{' at offset ${i}`);
        const name = source.slice(i + 1, end);
        const match = FIELD.exec(name);
        if (match === null) throw new TemplateSyntaxError(source, `placeholder {${name}} is not a name`);
        literals.push(buf);
        buf = "";
        fields.push(match[1] ?? name);
        asJson.push(match[2] !== undefined);
        i = end + 1;
      } else if (ch === "}") {
        if (source.startsWith("}}", i)) {
          buf += "}";
          i += 2;
          continue;
        }
        throw new TemplateSyntaxError(source, `single '}' at offset ${i}`);
      } else {
        buf += ch;
        i += 1;
      }
    }
    literals.push(buf);
    this.literals = literals;
    this.fields = fields;
    this.asJson = asJson;
  }

  /** Fill the placeholders from `values`; `{$}` takes `whole`. Throws `MissingValueError` for an absent name. */
  render(values: Readonly<Record<string, unknown>>, whole: unknown = null): string {
    let out = this.literals[0] ?? "";
    this.fields.forEach((name, index) => {
      let value: unknown;
      if (name === WHOLE) value = whole;
      else if (Object.prototype.hasOwnProperty.call(values, name) && values[name] !== undefined) value = values[name];
      else throw new MissingValueError(name);
      out += this.asJson[index] ? dumps(value) : formatValue(value);
      out += this.literals[index + 1] ?? "";
    });
    return out;
  }
}
