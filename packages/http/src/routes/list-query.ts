import { SpillwayError } from '@spillway/core';
import type { ErrorDetail } from '@spillway/core';
import type { Context } from 'hono';
import { z } from 'zod';

const WHOLE = { error: 'must be a whole number of 1 or more' };

/** Largest page of a paginated list. */
export const MAX_PAGE_SIZE = 1000;

/** A positive whole number of the query (a page, an account id); a bad one says so, and the reader adds what it got. */
export const positiveIntParam = () => z.coerce.number(WHOLE).int(WHOLE).min(1, WHOLE);

/** The page number of a paginated list: 1-based, default 1. */
export const pageParam = positiveIntParam().default(1).meta({ description: '1-based' });

/** The page size of a paginated list: 1 to {@link MAX_PAGE_SIZE}, default 50. */
export const pageSizeParam = positiveIntParam()
  .max(MAX_PAGE_SIZE, { error: `must be at most ${MAX_PAGE_SIZE}` })
  .default(50);

/** The query of a route that takes no parameters: read with {@link readListQuery}, any parameter is refused. */
export const noQuerySchema = z.object({});

type Raw = string | string[] | undefined;

/** The kind of value a parameter's schema takes under its optional and default wrappers (`array`, `number`, ...). */
function typeOf(schema: z.ZodType): string {
  let def = schema._zod.def as { type: string; innerType?: z.ZodType };
  while (def.innerType && def.type !== 'array') def = def.innerType._zod.def as typeof def;
  return def.type;
}

/**
 * Reads and parses the query parameters `schema` documents, the same way on every list route and
 * on the reads of one thing that take some (`GET /api/routes/{id}?revision=`):
 *
 * - names in any case (`Page`, `page`, `PAGE`: the interface's spelling is PascalCase, the other
 *   routes' camelCase, and its ASP.NET origin binds either);
 * - a list (an array in the schema) repeated (`a=1&a=2`), comma-separated, or with the brackets
 *   axios and qs write (`a[]=1`, `a[0]=1`);
 * - an empty value is no value;
 * - a name given twice with different values, and a name the route does not take, are a 400
 *   naming them (a filter misspelt or unsupported answered every row, as if it had filtered);
 * - a number is digits only, as the id path parameters are (no `0x10`, `1e1`, ` 2 `);
 * - a bad value is named with what was sent (`must be a whole number of 1 or more, got "abc"`).
 */
export function readListQuery<S extends z.ZodObject>(
  c: Context,
  schema: S,
  options: {
    /** Lists whose values are read in lower case (enums of lower-case words). */
    lowercase?: readonly string[];
  } = {},
): z.output<S> {
  const names = Object.keys(schema.shape);
  const byLower = new Map(names.map((n) => [n.toLowerCase(), n]));
  const given = new Map<string, string[]>();
  const details: ErrorDetail[] = [];
  for (const [key, values] of Object.entries(c.req.queries())) {
    const name = byLower.get(key.replace(/\[\d*\]$/, '').toLowerCase());
    if (!name) {
      details.push({
        path: key,
        message: `is not a parameter of this route; ${names.length > 0 ? `it takes ${names.join(', ')}` : 'it takes none'}`,
      });
      continue;
    }
    given.set(name, [...(given.get(name) ?? []), ...values]);
  }

  const raw: Record<string, Raw> = {};
  for (const [name, values] of given) {
    const type = typeOf(schema.shape[name] as z.ZodType);
    if (type === 'array') {
      const lower = options.lowercase?.includes(name);
      const items = values
        .flatMap((v) => v.split(','))
        .map((v) => (lower ? v.trim().toLowerCase() : v.trim()))
        .filter(Boolean);
      if (items.length > 0) raw[name] = items;
      continue;
    }
    const distinct = [...new Set(values.filter((v) => v !== ''))];
    if (distinct.length > 1) {
      details.push({
        path: name,
        message: `is given more than once, with different values: ${distinct.map((v) => JSON.stringify(v)).join(', ')}`,
      });
    } else if (distinct.length === 1 && type === 'number' && !/^[0-9]+$/.test(distinct[0]!)) {
      // Digits only, as the id path parameters: coercion read `0x10`, `1e1` and ` 2 ` as numbers.
      details.push({ path: name, message: `${WHOLE.error}, got ${JSON.stringify(distinct[0])}` });
    } else if (distinct.length === 1) raw[name] = distinct[0];
  }

  const parsed = details.length === 0 ? schema.safeParse(raw) : undefined;
  if (parsed?.success) return parsed.data;
  for (const issue of parsed?.error.issues ?? []) {
    const [name, index] = issue.path;
    const value = raw[String(name)];
    const got = typeof index === 'number' && Array.isArray(value) ? value[index] : value;
    const path = typeof index === 'number' ? `${String(name)}[${index}]` : String(name);
    details.push({ path, message: typeof got === 'string' ? `${issue.message}, got ${JSON.stringify(got)}` : issue.message });
  }
  throw new SpillwayError('validation_failed', `Invalid query: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`, details);
}
