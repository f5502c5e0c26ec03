import { z } from 'zod';

/**
 * Names of the component schemas of the OpenAPI document. A schema named here (or with
 * `.meta({ id })` in zod's global registry) becomes `#/components/schemas/<id>` and every use of
 * it a `$ref`, so the document stays small and generated clients get named types.
 */
export const openApiComponents = z.registry<{ id: string; description?: string }>();

/**
 * Names `schema` as the OpenAPI component `id` and returns it unchanged, so it can wrap a
 * definition in place. Naming the same schema again is a no-op; naming another one with a taken
 * id throws (two types cannot share a name).
 *
 * @example
 * export const balanceSchema = component(z.object({ balance: z.number(), currency: z.string() }), 'Balance');
 */
export function component<S extends z.ZodType>(schema: S, id: string, description?: string): S {
  if (openApiComponents.has(schema)) return schema;
  const taken = openApiComponents._idmap.get(id);
  if (taken && taken !== schema) throw new Error(`OpenAPI component name used twice: ${id}`);
  openApiComponents.add(schema, description ? { id, description } : { id });
  return schema;
}

type Io = 'input' | 'output';
type Json = Record<string, unknown>;

const INLINE_TYPES = new Set(['string', 'number', 'int', 'boolean', 'record', 'unknown', 'any', 'literal', 'enum']);
const PLACEHOLDER = /^#\/components\/schemas\/(input|output):(.+)$/;
const SHARED = /^__shared#\/\$defs\/(.+)$/;

/**
 * Collects the schemas a document uses and turns them into `components.schemas`. A schema is
 * converted once per direction: requests with zod's input type (defaults optional, transforms
 * before), responses with its output type. Where both give the same JSON Schema they share one
 * component; otherwise the request side is named `<id>Input`.
 */
export class ComponentCollector {
  private readonly ids = new Map<z.ZodType, string>();
  private readonly taken = new Set<string>();

  /** A `$ref` to `schema` (named `fallbackId` unless it has a name), resolved by {@link finish}. */
  ref(schema: z.ZodType, io: Io, fallbackId: string): Json {
    // A bare string, number or map needs no name of its own.
    if (!namedId(schema) && INLINE_TYPES.has(schema._zod.def.type)) {
      const { $schema: _s, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
      return rest;
    }
    return { $ref: `#/components/schemas/${io}:${this.idOf(schema, fallbackId)}` };
  }

  private idOf(schema: z.ZodType, fallbackId: string): string {
    const known = this.ids.get(schema) ?? namedId(schema);
    if (known) {
      this.ids.set(schema, known);
      this.taken.add(known);
      return known;
    }
    let id = fallbackId;
    for (let n = 2; this.taken.has(id) || openApiComponents._idmap.has(id) || z.globalRegistry._idmap.has(id); n++)
      id = `${fallbackId}${n}`;
    this.ids.set(schema, id);
    this.taken.add(id);
    return id;
  }

  /**
   * Converts every schema, rewrites the placeholder `$ref`s anywhere in `document` to final
   * component names, and answers the components reachable from it.
   */
  finish(document: Json): Record<string, Json> {
    const converted = { input: this.convert('input'), output: this.convert('output') };
    const same = (id: string): boolean =>
      converted.input[id] !== undefined &&
      converted.output[id] !== undefined &&
      JSON.stringify(converted.input[id], unplaceholder) === JSON.stringify(converted.output[id], unplaceholder);
    // An input schema differs when its own JSON does or when it refers to one that differs.
    const differs = new Set(Object.keys(converted.input).filter((id) => !same(id)));
    for (let grew = true; grew;) {
      grew = false;
      for (const id of Object.keys(converted.input)) {
        if (differs.has(id)) continue;
        if (refsOf(converted.input[id]!).some((ref) => differs.has(ref))) {
          differs.add(id);
          grew = true;
        }
      }
    }
    // Which schemas each direction reaches: only one used both ways and differing needs two names.
    const reached = { input: new Set<string>(), output: new Set<string>() };
    const walk = (node: unknown): void => {
      for (const [io, id] of placeholdersOf(node)) {
        if (reached[io].has(id)) continue;
        const json = converted[io][id];
        if (!json) throw new Error(`OpenAPI: no schema converted for ${io} ${id}`);
        reached[io].add(id);
        walk(json);
      }
    };
    walk(document);
    const nameOf = (io: Io, id: string): string => (io === 'input' && differs.has(id) && reached.output.has(id) ? `${id}Input` : id);
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (!node || typeof node !== 'object') return node;
      const out: Json = {};
      for (const [key, value] of Object.entries(node)) {
        const match = key === '$ref' && typeof value === 'string' ? PLACEHOLDER.exec(value) : null;
        out[key] = match ? `#/components/schemas/${nameOf(match[1] as Io, match[2]!)}` : rewrite(value);
      }
      return out;
    };

    Object.assign(document, rewrite(document));
    const schemas: Record<string, Json> = {};
    for (const io of ['output', 'input'] as const) {
      for (const id of reached[io]) schemas[nameOf(io, id)] = rewrite(converted[io][id]) as Json;
    }
    return Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  }

  /** JSON Schemas of every named and collected schema in one direction, by id, refs as placeholders. */
  private convert(io: Io): Record<string, Json> {
    const registry = z.registry<{ id: string }>();
    const add = (schema: z.ZodType, id: string): void => {
      if (!registry.has(schema)) registry.add(schema, { id });
    };
    for (const [id, schema] of openApiComponents._idmap) add(schema as z.ZodType, id);
    for (const [id, schema] of z.globalRegistry._idmap) add(schema as z.ZodType, id);
    for (const [schema, id] of this.ids) add(schema, id);

    const { schemas } = z.toJSONSchema(registry, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      uri: (id) => `#/components/schemas/${io}:${id}`,
    });
    const out: Record<string, Json> = {};
    for (const [id, schema] of Object.entries(schemas)) {
      const { $schema: _s, $id: _i, id: _id, $defs, ...rest } = schema as Json;
      if (id === '__shared') {
        // Schemas zod extracted without a name of ours (cycles): components of their own.
        for (const [defId, def] of Object.entries(($defs ?? {}) as Record<string, Json>)) out[`Shared_${defId}`] = def;
        continue;
      }
      const description = openApiComponents.get(registry._idmap.get(id) as z.ZodType)?.description;
      out[id] = description && rest['description'] === undefined ? { description, ...rest } : rest;
    }
    // Refs into zod's shared definitions point at those components instead.
    const fix = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(fix);
      if (!node || typeof node !== 'object') return node;
      const copy: Json = {};
      for (const [key, value] of Object.entries(node)) {
        const match = key === '$ref' && typeof value === 'string' ? PLACEHOLDER.exec(value) : null;
        const shared = match ? SHARED.exec(match[2]!) : null;
        copy[key] = shared ? `#/components/schemas/${io}:Shared_${shared[1]}` : fix(value);
      }
      return copy;
    };
    return fix(out) as Record<string, Json>;
  }
}

function namedId(schema: z.ZodType): string | undefined {
  return openApiComponents.get(schema)?.id ?? (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;
}

/** JSON.stringify replacer comparing refs without their direction. */
function unplaceholder(key: string, value: unknown): unknown {
  if (key === '$ref' && typeof value === 'string') return value.replace(PLACEHOLDER, '#/components/schemas/$2');
  return value;
}

function refsOf(node: unknown): string[] {
  return placeholdersOf(node).map(([, id]) => id);
}

function placeholdersOf(node: unknown, found: Array<[Io, string]> = []): Array<[Io, string]> {
  if (Array.isArray(node)) for (const n of node) placeholdersOf(n, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      const match = key === '$ref' && typeof value === 'string' ? PLACEHOLDER.exec(value) : null;
      if (match) found.push([match[1] as Io, match[2]!]);
      else placeholdersOf(value, found);
    }
  }
  return found;
}
