// Compiles JSON Schemas with ajv in strict mode, for tests/generator/test_ajv.py.
// stdin: [{"id": ..., "schema": ...}, ...]; stdout: [{"id": ..., "ok": bool, "error": string|null}, ...].
// ajv-formats adds the formats ajv knows by name; keys starting "x-" are registered as annotation
// keywords, which is how ajv allows what toolproof's lint allows.
"use strict";
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

function annotations(node, found) {
  if (Array.isArray(node)) node.forEach((item) => annotations(item, found));
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith("x-")) found.add(key);
      annotations(value, found);
    }
  }
  return found;
}

const items = JSON.parse(require("fs").readFileSync(0, "utf8"));
const results = items.map(({id, schema}) => {
  const ajv = new Ajv2020({strict: true});
  addFormats(ajv);
  for (const keyword of annotations(schema, new Set())) ajv.addKeyword(keyword);
  try {
    ajv.compile(schema);
    return {id, ok: true, error: null};
  } catch (error) {
    return {id, ok: false, error: error.message};
  }
});
process.stdout.write(JSON.stringify(results));
