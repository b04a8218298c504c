/**
 * Read `null` as "absent" where OpenAI strict mode forced it. Strict mode makes every optional property
 * required and nullable, so a model sends `"max_words": null` for "no limit". The exports' loss list
 * (`exports/openai/losses.json`) names each such property: a loss with the action "made required and
 * nullable" at a JSON pointer into the input schema. Before validation, a null sent for one of them is
 * dropped, as the Python runtime does (`toolproof.runtime.nulls`), so the handler sees what the contract
 * describes; a null anywhere else is judged by the schema as it came.
 */

/** The action of a loss that made an optional property required and nullable. */
export const MADE_NULLABLE = "made required and nullable";

/** One entry of an exports `losses.json` list (`<set>.losses`). */
export interface Loss {
  readonly tool: string;
  readonly schema: string;
  readonly pointer: string;
  readonly keyword: string;
  readonly action: string;
  readonly detail?: string;
}

/** The pointers, into `tool`'s input schema, of the optional properties strict mode made nullable. */
export function nullablePointers(losses: readonly Loss[], tool: string): string[] {
  const found = losses.filter((l) => l.tool === tool && l.schema === "input" && l.action === MADE_NULLABLE);
  return [...new Set(found.map((l) => l.pointer))].sort();
}

type Schema = Readonly<Record<string, unknown>>;
type Facet = readonly [Schema, string];

const BRANCHES = ["anyOf", "oneOf", "allOf"] as const;

const escape = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Drops the nulls of one input schema's nullable properties from arguments; built once per contract. */
export class NullStripper {
  private readonly pointers: ReadonlySet<string>;

  constructor(
    private readonly schema: object,
    pointers: readonly string[],
  ) {
    this.pointers = new Set(pointers);
  }

  /** Whether any null can be dropped at all: false when strict mode made no property nullable. */
  get active(): boolean {
    return this.pointers.size > 0;
  }

  /** `value` without the nulls sent for nullable properties; the value itself when none is there. */
  strip(value: unknown): unknown {
    return this.active ? this.walk(value, this.facets([[this.schema as Schema, ""]])) : value;
  }

  private resolve(ref: string): Facet | undefined {
    if (!ref.startsWith("#") || (ref.length > 1 && !ref.startsWith("#/"))) return undefined; // anchors, other files
    let node: unknown = this.schema;
    const parts = ref === "#" ? [] : ref.slice(2).split("/").map((p) => decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~"));
    for (const part of parts) {
      if (!isObject(node) && !Array.isArray(node)) return undefined;
      node = (node as Record<string, unknown>)[part];
    }
    return isObject(node) ? [node, parts.map(escape).map((p) => `/${p}`).join("")] : undefined;
  }

  /** The schemas a value must meet here: each one, the local `$ref` it names and its branches, by pointer. */
  private facets(start: readonly Facet[]): Facet[] {
    const out: Facet[] = [];
    const seen = new Set<string>();
    const todo = [...start];
    for (let facet = todo.pop(); facet !== undefined; facet = todo.pop()) {
      const [node, pointer] = facet;
      if (seen.has(pointer)) continue;
      seen.add(pointer);
      out.push(facet);
      const ref = node["$ref"];
      const target = typeof ref === "string" ? this.resolve(ref) : undefined;
      if (target !== undefined) todo.push(target);
      for (const key of BRANCHES) {
        const branches = node[key];
        if (!Array.isArray(branches)) continue;
        branches.forEach((sub: unknown, index) => {
          if (isObject(sub)) todo.push([sub, `${pointer}/${key}/${index}`]);
        });
      }
    }
    return out;
  }

  private walk(value: unknown, facets: readonly Facet[]): unknown {
    if (Array.isArray(value)) {
      let changed: unknown[] | undefined;
      value.forEach((item, index) => {
        const subs = facets.flatMap(([node, pointer]): Facet[] => {
          const prefix = node["prefixItems"];
          if (Array.isArray(prefix) && index < prefix.length) {
            const sub: unknown = prefix[index];
            return isObject(sub) ? [[sub, `${pointer}/prefixItems/${index}`]] : [];
          }
          const items = node["items"];
          return isObject(items) ? [[items, `${pointer}/items`]] : [];
        });
        const stripped = subs.length > 0 ? this.walk(item, this.facets(subs)) : item;
        if (stripped !== item) (changed ??= [...value])[index] = stripped;
      });
      return changed ?? value;
    }
    if (!isObject(value)) return value;
    let changed: Record<string, unknown> | undefined;
    for (const [name, item] of Object.entries(value)) {
      const subs: Facet[] = [];
      let nullable = false;
      for (const [node, pointer] of facets) {
        const props = node["properties"];
        const sub = isObject(props) ? props[name] : undefined;
        if (sub === undefined) continue;
        const here = `${pointer}/properties/${escape(name)}`;
        nullable ||= this.pointers.has(here);
        if (isObject(sub)) subs.push([sub, here]);
      }
      if (item === null && nullable) {
        changed ??= { ...value };
        delete changed[name];
        continue;
      }
      const stripped = subs.length > 0 ? this.walk(item, this.facets(subs)) : item;
      if (stripped !== item) (changed ??= { ...value })[name] = stripped;
    }
    return changed ?? value;
  }
}
