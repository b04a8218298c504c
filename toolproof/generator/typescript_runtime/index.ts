/** The TypeScript runtime of toolproof tools: run each as its contract says. Everything public is exported here. */
export { dumps } from "./json.js";
export { Template, TemplateSyntaxError, MissingValueError, WHOLE, formatValue } from "./template.js";
export { MADE_NULLABLE, NullStripper, nullablePointers, type Loss } from "./nulls.js";
export { SchemaValidator, jsonPath, type Violation } from "./validation.js";
export {
  Contract,
  ERROR_META_KEY,
  INTERNAL_ERROR,
  INVALID_ARGUMENTS,
  STANDARD_ERRORS,
  Tool,
  ToolError,
  UNKNOWN_TOOL,
  toMcp,
  unknownTool,
  type CallToolResult,
  type ContractData,
  type ErrorEntry,
  type ErrorInfo,
  type Handler,
  type McpToolDefinition,
  type StandardCode,
  type ToolContext,
  type ToolResult,
} from "./tool.js";
export { VECTORS_FORMAT, differences, replay, unsupported, type Example, type Vectors } from "./vectors.js";
