// Validates data against schemas found by URI in documents ajv holds, in strict mode, for
// tests/generator/test_jsonschema_export.py.
// stdin: {"documents": [...], "checks": [{"id": ..., "uri": "<$id>#/$defs/Input", "data": ...}, ...]};
// stdout: [{"id": ..., "valid": bool|null, "error": string|null}, ...] (valid is null when the
// schema at uri could not be compiled: error says why).
"use strict";
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

const {documents, checks} = JSON.parse(require("fs").readFileSync(0, "utf8"));
const results = checks.map(({id, uri, data}) => {
  const ajv = new Ajv2020({strict: true});
  addFormats(ajv);
  try {
    for (const document of documents) ajv.addSchema(document);
    const validate = ajv.getSchema(uri);
    if (!validate) return {id, valid: null, error: `no schema at ${uri}`};
    const valid = validate(data);
    return {id, valid, error: valid ? null : ajv.errorsText(validate.errors)};
  } catch (error) {
    return {id, valid: null, error: error.message};
  }
});
process.stdout.write(JSON.stringify(results));
