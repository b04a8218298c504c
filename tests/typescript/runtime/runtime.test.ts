import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Contract,
  ERROR_META_KEY,
  MADE_NULLABLE,
  NullStripper,
  Template,
  ToolError,
  dumps,
  jsonPath,
  nullablePointers,
  toMcp,
  unknownTool,
} from "../runtime/index.js";

type Input = { text: string; max_words?: number };
type Output = { words: number; characters: number };

const contract = new Contract<Input, Output, "too_many_words">({
  name: "word_count",
  definition: { name: "word_count", inputSchema: { type: "object" } },
  input: {
    type: "object",
    properties: { text: { type: "string" }, max_words: { type: "integer", minimum: 1 } },
    required: ["text"],
    additionalProperties: false,
  },
  output: { type: "object", properties: { words: { type: "integer" }, characters: { type: "integer" } }, required: ["words", "characters"] },
  errors: { too_many_words: { message: "The text has {words} words; the limit is {max_words}", hint: "Send less." } },
  render: { result: "{words} words, {characters} characters", error: "ERROR: {message}", error_output: { code: "{code}", limit: "{max_words}", kind: "refusal", said: "{text}!" } },
  nullable: ["/properties/max_words"],
});

const tool = contract.bind((args) => {
  const words = args.text.split(/\s+/).filter(Boolean).length;
  if (args.max_words !== undefined && words > args.max_words) throw new ToolError("too_many_words", { words, max_words: args.max_words });
  return { words, characters: args.text.length };
});

test("a template renders strings as they are, other values as Python's JSON, and {$} as the whole value", () => {
  const t = new Template("{a} {b} {{x}} {$}");
  assert.equal(t.render({ a: "s", b: [1, { k: true }] }, { z: null }), 's [1, {"k": true}] {x} {"z": null}');
  assert.equal(new Template("{a|json}").render({ a: "q\"" }), '"q\\""');
  assert.throws(() => new Template("{a"), /unclosed/);
  assert.equal(dumps({ é: "ü" }), '{"é": "ü"}');
});

test("a success renders the result and carries structuredContent", async () => {
  const result = await tool.call({ text: "to be or not" });
  assert.deepEqual(toMcp(result), {
    content: [{ type: "text", text: "4 words, 12 characters" }],
    isError: false,
    structuredContent: { words: 4, characters: 12 },
  });
});

test("a catalogued error has its message, hint, error object and _meta", async () => {
  const mcp = toMcp(await tool.call({ text: "a b c", max_words: 2 }));
  assert.equal(mcp.isError, true);
  assert.deepEqual(mcp.content, [{ type: "text", text: "ERROR: The text has 3 words; the limit is 2" }]);
  assert.deepEqual(mcp._meta?.[ERROR_META_KEY], {
    code: "too_many_words",
    message: "The text has 3 words; the limit is 2",
    hint: "Send less.",
    output: { code: "too_many_words", limit: 2, kind: "refusal", said: "a b c!" },
  });
});

test("arguments that break the schema are invalid_arguments naming the JSON path", async () => {
  const missing = await tool.call({});
  assert.equal(missing.error?.code, "invalid_arguments");
  assert.equal(missing.error?.message, "Invalid arguments: $.text: is required");
  const low = await tool.call({ text: "a", max_words: 0 });
  assert.match(low.error?.message ?? "", /^Invalid arguments: \$\.max_words: /);
  assert.equal(jsonPath("/a/0/b~1c"), '$.a[0]["b/c"]');
});

test("anything else a handler throws is internal_error, with no detail", async () => {
  const broken = contract.bind(() => {
    throw new Error("secret /home/path");
  });
  const original = console.error;
  console.error = () => {};
  try {
    const result = await broken.call({ text: "a" });
    assert.equal(result.error?.code, "internal_error");
    assert.doesNotMatch(result.text, /secret/);
  } finally {
    console.error = original;
  }
});

test("an unknown tool is unknown_tool naming the tools there are", () => {
  const mcp = unknownTool("nope", [tool]);
  assert.equal(mcp.content[0]?.text, "ERROR: Unknown tool 'nope'. Available tools: word_count.");
});

test("the loss list names what OpenAI strict mode made nullable, per tool, input only", () => {
  const loss = { schema: "input", keyword: "required", action: MADE_NULLABLE, detail: "" };
  const losses = [
    { ...loss, tool: "word_count", pointer: "/properties/max_words" },
    { ...loss, tool: "word_count", pointer: "/properties/max_words" },
    { ...loss, tool: "other", pointer: "/properties/limit" },
    { ...loss, tool: "word_count", pointer: "/properties/text", action: "moved to description" },
    { ...loss, tool: "word_count", pointer: "", schema: "output" },
  ];
  assert.deepEqual(nullablePointers(losses, "word_count"), ["/properties/max_words"]);
});

test("a null sent where strict mode made a property nullable is read as absent; any other null is judged", async () => {
  const sent = await tool.call({ text: "a b", max_words: null });
  assert.deepEqual(sent.output, { words: 2, characters: 3 });
  const refused = await tool.call({ text: null, max_words: null });
  assert.equal(refused.error?.code, "invalid_arguments");
  assert.match(refused.error?.message ?? "", /^Invalid arguments: \$\.text: /);
});

test("nulls are dropped at nested objects, array items, prefix items, $ref targets and branches", () => {
  const schema = {
    type: "object",
    properties: {
      page: { type: "object", properties: { size: { type: "integer" }, keep: { type: ["integer", "null"] } } },
      rows: { type: "array", items: { $ref: "#/$defs/Row" } },
      pair: { type: "array", prefixItems: [{ type: "object", properties: { a: { type: "string" } } }] },
      either: { anyOf: [{ type: "object", properties: { b: { type: "string" } } }, { type: "string" }] },
      "a/b": { type: "string" },
    },
    $defs: { Row: { type: "object", properties: { note: { type: "string" } } } },
  };
  const stripper = new NullStripper(schema, [
    "/properties/page/properties/size",
    "/$defs/Row/properties/note",
    "/properties/pair/prefixItems/0/properties/a",
    "/properties/either/anyOf/0/properties/b",
    "/properties/a~1b",
  ]);
  const sent = {
    page: { size: null, keep: null },
    rows: [{ note: null }, { note: "x" }],
    pair: [{ a: null }, { a: null }],
    either: { b: null },
    "a/b": null,
    other: null,
  };
  assert.deepEqual(stripper.strip(sent), {
    page: { keep: null },
    rows: [{}, { note: "x" }],
    pair: [{}, { a: null }],
    either: {},
    other: null,
  });
  assert.deepEqual(sent.page, { size: null, keep: null }); // the value sent is not changed
  const untouched = { page: { size: 1 } };
  assert.equal(stripper.strip(untouched), untouched);
  assert.equal(new NullStripper(schema, []).active, false);
});
