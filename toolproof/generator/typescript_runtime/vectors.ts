/**
 * Replay a contract's test vectors (`toolproof export --format vectors`, format `toolproof-vectors/1`)
 * against a tool in process, with no Python: each example's input is called, its `expect` compared.
 */
import { isDeepStrictEqual } from "node:util";
import type { Tool, ToolResult } from "./tool.js";

export const VECTORS_FORMAT = "toolproof-vectors/1";

export interface Example {
  readonly name: string;
  readonly input: unknown;
  readonly given?: unknown;
  readonly expect: Readonly<Record<string, unknown>>;
}

export interface Vectors {
  readonly format: string;
  readonly tool: string;
  readonly examples: readonly Example[];
}

/** Why an example cannot run here; undefined when it can. Fixtures (files, folders) need a file layer. */
export function unsupported(example: Example): string | undefined {
  return example.given === undefined ? undefined : "its fixtures (given) need a file layer, which this runtime has not";
}

const show = (value: unknown): string => JSON.stringify(value);

/** What of `expect` the result breaks, one sentence each; empty when it holds. */
export function differences(expect: Readonly<Record<string, unknown>>, result: ToolResult): string[] {
  const found: string[] = [];
  const error = result.error;
  if ("error" in expect) {
    if (error === null) found.push(`expected error ${show(expect["error"])}, got output ${show(result.output)}`);
    else if (error.code !== expect["error"]) found.push(`expected error ${show(expect["error"])}, got ${show(error.code)}: ${error.message}`);
  } else if (error !== null) {
    found.push(`expected success, got error ${show(error.code)}: ${error.message}`);
  }
  if ("message" in expect && error?.message !== expect["message"]) {
    found.push(`expected message ${show(expect["message"])}, got ${show(error?.message)}`);
  }
  if ("error_output" in expect && !isDeepStrictEqual(error?.output, expect["error_output"])) {
    found.push(`expected error_output ${show(expect["error_output"])}, got ${show(error?.output)}`);
  }
  if ("output" in expect && !isDeepStrictEqual(result.output, expect["output"])) {
    found.push(`expected output ${show(expect["output"])}, got ${show(result.output)}`);
  }
  const output = typeof result.output === "object" && result.output !== null ? (result.output as Record<string, unknown>) : {};
  for (const [key, value] of Object.entries((expect["output_includes"] ?? {}) as Record<string, unknown>)) {
    if (!isDeepStrictEqual(output[key], value)) found.push(`expected output.${key} ${show(value)}, got ${show(output[key])}`);
  }
  for (const key of (expect["output_has"] ?? []) as string[]) {
    if (!(key in output)) found.push(`expected output.${key} to exist`);
  }
  if ("text" in expect && result.text !== expect["text"]) {
    found.push(`expected text ${show(expect["text"])}, got ${show(result.text)}`);
  }
  for (const part of (expect["text_contains"] ?? []) as string[]) {
    if (!result.text.includes(part)) found.push(`expected the text to contain ${show(part)}, got ${show(result.text)}`);
  }
  return found;
}

/** Replay one example against `tool`; throws an Error naming the tool, the example and each difference. */
export async function replay(tool: Tool, example: Example): Promise<void> {
  const result = await tool.call(example.input);
  const found = differences(example.expect, result);
  if (found.length > 0) {
    throw new Error(`tool ${show(tool.name)}, example ${show(example.name)}: ${found.join("; ")}`);
  }
}
