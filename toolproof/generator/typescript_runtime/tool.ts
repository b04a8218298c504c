/**
 * One tool call as its contract says: validate the arguments, call the handler, check and render its
 * output, or turn what it raised into a catalogued error with its text and error object; then the MCP
 * `CallToolResult` (`toMcp`), the error's code and object in `_meta["dev.toolproof/error"]`.
 */
import { Template, MissingValueError } from "./template.js";
import { SchemaValidator } from "./validation.js";
import { NullStripper } from "./nulls.js";

export const ERROR_META_KEY = "dev.toolproof/error";
export const INVALID_ARGUMENTS = "invalid_arguments";
export const UNKNOWN_TOOL = "unknown_tool";
export const INTERNAL_ERROR = "internal_error";
export type StandardCode = typeof INVALID_ARGUMENTS | typeof UNKNOWN_TOOL | typeof INTERNAL_ERROR;

/** A catalogue entry: the message template over the error's params and the arguments, and a hint for the model. */
export interface ErrorEntry {
  readonly message: string;
  readonly hint?: string;
}

/** Codes every contract inherits, as the Python runtime words them (the texts are implementation-defined). */
export const STANDARD_ERRORS: Readonly<Record<StandardCode, ErrorEntry>> = {
  invalid_arguments: {
    message: "Invalid arguments: {detail}",
    hint: "Correct the argument named in the message and call the tool again.",
  },
  unknown_tool: {
    message: "Unknown tool '{tool}'. Available tools: {available}.",
    hint: "Call one of the available tools by its exact name.",
  },
  internal_error: {
    message: "The tool failed with an internal error. The failure has been logged.",
    hint: "Try the call again later, or continue without this tool.",
  },
};

/** The MCP `Tool` a server lists: the generated definition, exactly as the contract exports it. */
export interface McpToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: { readonly type: "object"; readonly [key: string]: unknown };
  readonly outputSchema?: { readonly type: "object"; readonly [key: string]: unknown };
  readonly annotations?: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** What a generated module holds of one contract. */
export interface ContractData<Code extends string> {
  readonly name: string;
  readonly definition: McpToolDefinition;
  readonly input: object;
  readonly output: object;
  readonly errors: Readonly<Record<Code, ErrorEntry>>;
  readonly render: { readonly result: string; readonly error: string; readonly error_output?: Readonly<Record<string, unknown>> };
  /** Pointers into `input` of the optional properties OpenAI strict mode made nullable (`nullablePointers`). */
  readonly nullable?: readonly string[];
}

/** A catalogued failure a handler raises, through its generated factory; the message is built from the params. */
export class ToolError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    readonly params: Readonly<Record<string, unknown>> = {},
    readonly hint?: string,
  ) {
    super(`${code} ${JSON.stringify(params)}`);
    this.name = "ToolError";
  }
}

/** A catalogued error as data: its code, message, hint and the contract's error object. */
export interface ErrorInfo {
  readonly code: string;
  readonly message: string;
  readonly hint?: string;
  readonly output?: Readonly<Record<string, unknown>>;
}

/** The outcome of one call: a structured output or a catalogued error, and the text the model reads. */
export interface ToolResult {
  readonly tool: string;
  readonly output: unknown;
  readonly error: ErrorInfo | null;
  readonly text: string;
}

/** What a handler gets beside its arguments. */
export interface ToolContext {
  readonly tool: string;
}

export type Handler<Input, Output> = (args: Input, ctx: ToolContext) => Output | Promise<Output>;

/** A contract, parsed once: its templates and validators, typed by its generated input, output and codes. */
export class Contract<Input, Output, Code extends string> {
  readonly name: string;
  readonly definition: McpToolDefinition;
  readonly catalogue: Readonly<Record<string, { message: Template; hint?: string }>>;
  readonly renderResult: Template;
  readonly renderError: Template;
  readonly errorOutput: ReadonlyArray<readonly [string, Template | unknown]> | null;
  readonly input: SchemaValidator;
  readonly output: SchemaValidator;
  readonly nulls: NullStripper;
  declare readonly _types?: { input: Input; output: Output; code: Code };

  constructor(data: ContractData<Code>) {
    this.name = data.name;
    this.definition = data.definition;
    const entries: Record<string, ErrorEntry> = { ...STANDARD_ERRORS, ...data.errors };
    this.catalogue = Object.fromEntries(
      Object.entries(entries).map(([code, entry]) => [
        code,
        entry.hint === undefined ? { message: new Template(entry.message) } : { message: new Template(entry.message), hint: entry.hint },
      ]),
    );
    this.renderResult = new Template(data.render.result);
    this.renderError = new Template(data.render.error);
    const shape = data.render.error_output;
    this.errorOutput = shape === undefined ? null : Object.entries(shape).map(([k, v]) => [k, typeof v === "string" ? new Template(v) : v] as const);
    this.input = new SchemaValidator(data.input);
    this.output = new SchemaValidator(data.output);
    this.nulls = new NullStripper(data.input, data.nullable ?? []);
  }

  /** Bind a handler: the handler's type is checked against the contract's input and output. */
  bind(handler: Handler<Input, Output>): Tool {
    return new Tool(this as Contract<unknown, unknown, string>, handler as Handler<unknown, unknown>);
  }
}

const DEFAULT_ERROR_TEXT = new Template("ERROR: {message}");

/** A contract bound to its handler: what a server calls. */
export class Tool {
  constructor(
    readonly contract: Contract<unknown, unknown, string>,
    readonly handler: Handler<unknown, unknown>,
  ) {}

  get name(): string {
    return this.contract.name;
  }

  /** Call the tool with the arguments `sent` (a JSON value): never throws; a failure is a catalogued error. */
  async call(sent: unknown): Promise<ToolResult> {
    const c = this.contract;
    const args = c.nulls.strip(sent); // a null strict mode forced means absent
    const refused = c.input.violations(args);
    const first = refused[0];
    if (first !== undefined) {
      return this.error(INVALID_ARGUMENTS, { detail: `${first.path}: ${first.text}`, path: first.path }, args);
    }
    let output: unknown;
    try {
      output = await this.handler(args, { tool: c.name });
    } catch (exc) {
      if (exc instanceof ToolError && Object.prototype.hasOwnProperty.call(c.catalogue, exc.code)) {
        return this.error(exc.code, exc.params, args, exc.hint);
      }
      console.error(`toolproof: ${c.name} failed:`, exc);
      return this.error(INTERNAL_ERROR, {}, args);
    }
    const broken = c.output.violations(output);
    if (broken.length > 0) {
      console.error(`toolproof: ${c.name} returned output that breaks its contract: ${broken.map((v) => `${v.path}: ${v.text}`).join("; ")}`);
      return this.error(INTERNAL_ERROR, {}, args);
    }
    try {
      const values = typeof output === "object" && output !== null ? (output as Record<string, unknown>) : {};
      return { tool: c.name, output, error: null, text: c.renderResult.render(values, output) };
    } catch (exc) {
      console.error(`toolproof: rendering the result of ${c.name} failed:`, exc);
      return this.error(INTERNAL_ERROR, {}, args);
    }
  }

  /** The catalogued error `code` with its params: message, hint, the text the model reads, the error object. */
  error(code: string, params: Readonly<Record<string, unknown>>, args: unknown, hint?: string): ToolResult {
    const c = this.contract;
    const entry = c.catalogue[code] ?? c.catalogue[INTERNAL_ERROR];
    const argValues = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
    let message: string;
    try {
      message = entry?.message.render(params) ?? code;
    } catch (exc) {
      if (!(exc instanceof MissingValueError)) throw exc;
      message = entry?.message.source ?? code;
    }
    const shownHint = hint ?? entry?.hint;
    const info: { code: string; message: string; hint?: string; output?: Record<string, unknown> } = { code, message };
    if (shownHint !== undefined) info.hint = shownHint;
    const values = { ...params, code, message, hint: shownHint ?? "" };
    let text: string;
    try {
      text = c.renderError.render(values, { ...info });
    } catch {
      text = DEFAULT_ERROR_TEXT.render(values);
    }
    if (c.errorOutput !== null) {
      const all: Record<string, unknown> = { ...argValues, ...params, code, message };
      if (shownHint !== undefined) all["hint"] = shownHint;
      info.output = errorObject(c.errorOutput, all);
    }
    return { tool: c.name, output: null, error: info, text };
  }
}

/** `render.error_output` filled: a literal as it is, `"{x}"` the value with its type, other text rendered. */
function errorObject(entries: ReadonlyArray<readonly [string, Template | unknown]>, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of entries) {
    if (!(entry instanceof Template)) {
      out[key] = entry;
    } else if (entry.fields.every((name) => values[name] !== undefined)) {
      const only = entry.fields[0];
      out[key] = entry.fields.length === 1 && only !== undefined && entry.source === `{${only}}` ? values[only] : entry.render(values);
    }
  }
  return out;
}

/** An MCP `CallToolResult`: the text, `structuredContent` on success, `isError`, the error in `_meta`. */
export interface CallToolResult {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export function toMcp(result: ToolResult): CallToolResult {
  const out: CallToolResult = { content: [{ type: "text", text: result.text }], isError: result.error !== null };
  if (result.error === null) {
    if (typeof result.output === "object" && result.output !== null && !Array.isArray(result.output)) {
      out.structuredContent = result.output as Record<string, unknown>;
    }
  } else {
    out._meta = { [ERROR_META_KEY]: { ...result.error } };
  }
  return out;
}

/** The result of a call to a tool nobody registered. */
export function unknownTool(name: string, tools: readonly Tool[]): CallToolResult {
  const available = tools.map((t) => t.name).join(", ");
  const entry = STANDARD_ERRORS.unknown_tool;
  const message = new Template(entry.message).render({ tool: name, available });
  const error: ErrorInfo = entry.hint === undefined ? { code: UNKNOWN_TOOL, message } : { code: UNKNOWN_TOOL, message, hint: entry.hint };
  return toMcp({ tool: name, output: null, error, text: DEFAULT_ERROR_TEXT.render({ message }) });
}
