/**
 * JSON text as the contract renders it: Python's `json.dumps(value, ensure_ascii=False)` layout,
 * `", "` between items and `": "` after keys, non-ASCII kept. A number is written as JavaScript
 * writes it, so a float with no fraction (`2.0`) renders `2`: such texts are implementation-defined.
 */
export function dumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : value > 0 ? "Infinity" : value < 0 ? "-Infinity" : "NaN";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return "[" + value.map(dumps).join(", ") + "]";
  if (typeof value === "object") {
    const parts = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => JSON.stringify(k) + ": " + dumps(v));
    return "{" + parts.join(", ") + "}";
  }
  throw new TypeError(`a ${typeof value} has no JSON form`);
}
