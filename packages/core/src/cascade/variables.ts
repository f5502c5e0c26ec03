import { z } from 'zod';
import { SpillwayError } from '../errors.ts';
import { issuesToDetails } from '../validation/issue-details.ts';

/** `%name=<id>%` inserts a text, `%url=<id>%` a URL, `%short_url=<id>%` a short link to the URL. */
export type VariableKind = 'name' | 'url' | 'short_url';

/** One variable token found in a text. */
export interface VariableRef {
  kind: VariableKind;
  id: string;
  /** The token as written, `%short_url=7%`. */
  token: string;
}

/** Ids of stored variables: the overview shape sends integers, so both are accepted and kept as text. */
const VARIABLE_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const TOKEN = /%(name|url|short_url)=([A-Za-z0-9_.-]{1,64})%/g;

/** Every variable token of `text`, in order (repeats included). */
export function findVariables(text: string): VariableRef[] {
  return [...text.matchAll(TOKEN)].map((m) => ({ kind: m[1] as VariableKind, id: m[2] as string, token: m[0] }));
}

/**
 * Replaces every variable token of `text` by what `lookup` answers; a token `lookup` does not
 * know stays as written (submission already rejected unknown variables, so this is a race with
 * a deletion, and leaving the token is safer than sending a half-empty text).
 */
export function resolveVariables(text: string, lookup: (kind: VariableKind, id: string) => string | undefined): string {
  return text.replace(TOKEN, (token, kind: VariableKind, id: string) => lookup(kind, id) ?? token);
}

/** True for a value `%url=%` and `%short_url=%` can insert: an absolute http(s) URL. */
export function isLinkValue(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A stored variable of an account. */
export interface Variable {
  id: string;
  value: string;
}

/** Most items one `POST /api/items` stores. */
export const MAX_VARIABLE_ITEMS = 5000;

/** An id as the interface sends it: a string or an integer, stored as text. */
export const variableIdSchema = z
  .union([z.string(), z.number().int().nonnegative()], { error: 'must be a string or a non-negative integer' })
  .transform((v) => String(v))
  .pipe(z.string().regex(VARIABLE_ID, 'must be 1-64 letters, digits, "_", "." or "-"'));

/** A variable as uploaded: `{ id, value }`, the id a string or an integer. */
export const variableItemSchema = z.object({
  id: variableIdSchema,
  value: z.string().max(4096),
});

/**
 * The variables a message (or a broadcast's recipient) brings along, at most 100: an id given
 * twice (`1` and `"1"` are one id) is refused at the repeat, rather than the last one silently
 * winning.
 */
export const inlineVariablesSchema = z
  .array(variableItemSchema)
  .max(100)
  .superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (seen.has(item.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `variable ${item.id} is given twice` });
      seen.add(item.id);
    });
  });

/**
 * The body of `POST /api/items`: `{ items: [{ id, value }] }`, or the bare array. One namespace
 * per account: `%name=7%` inserts item 7's value, `%url=7%` and `%short_url=7%` insert it as a
 * link (then it must be an http(s) URL). Storing an id again replaces its value.
 */
export const variableUploadSchema = z.union([
  z.array(variableItemSchema).min(1).max(MAX_VARIABLE_ITEMS),
  z.object({ items: z.array(variableItemSchema).min(1).max(MAX_VARIABLE_ITEMS) }),
]);

/**
 * Parses a `POST /api/items` body into the variables to store (the last of repeated ids wins).
 * @throws SpillwayError `validation_failed` listing every bad item (`items[2].id`).
 */
export function parseVariableUpload(body: unknown): Variable[] {
  const isArray = Array.isArray(body);
  const schema = isArray ? variableUploadSchema.options[0] : variableUploadSchema.options[1];
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new SpillwayError('validation_failed', 'The variables are invalid', issuesToDetails(parsed.error.issues, isArray ? 'items' : ''));
  }
  const items = Array.isArray(parsed.data) ? parsed.data : parsed.data.items;
  return [...new Map(items.map((item) => [item.id, item])).values()];
}
