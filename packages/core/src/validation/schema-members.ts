import type * as z from 'zod';

/**
 * The member names of the object schema that `schema` applies at `path` of `value` (the input it
 * parsed), through optional, nullable, default, pipe, array and union schemas; of a discriminated
 * union, the option `value`'s discriminator picks. Empty when no object schema applies there. For
 * the error of a strict object, which names the members it refused but not those it takes.
 *
 * @example membersAt(messageItemSchema, { type: 'chatapp_trans', messageData: {} }, ['messageData']) // ['fileUrl', 'fileName', 'fileType']
 */
export function membersAt(schema: z.core.$ZodType, value: unknown, path: readonly PropertyKey[]): string[] {
  let at = schema as z.core.$ZodTypes;
  let data = value;
  for (let i = 0; ;) {
    const def = at._zod.def;
    // optional, nullable, default, prefault, nonoptional, readonly, catch: the schema they wrap.
    if ('innerType' in def) at = def.innerType as z.core.$ZodTypes;
    else if (def.type === 'pipe') at = def.in as z.core.$ZodTypes;
    else if (def.type === 'lazy') at = def.getter() as z.core.$ZodTypes;
    else if (def.type === 'object') {
      if (i === path.length) return Object.keys(def.shape);
      const key = path[i++];
      const next = typeof key === 'string' ? def.shape[key] : undefined;
      if (!next) return [];
      at = next as z.core.$ZodTypes;
      data = member(data, key);
    } else if (def.type === 'array') {
      if (i === path.length) return [];
      data = member(data, path[i++]);
      at = def.element as z.core.$ZodTypes;
    } else if (def.type === 'union') {
      const rest = path.slice(i);
      const discriminator = (def as Partial<z.core.$ZodDiscriminatedUnionDef>).discriminator;
      if (discriminator !== undefined) {
        const picked = member(data, discriminator);
        const option = def.options.find((o) =>
          (o._zod as { propValues?: z.core.util.PropValues }).propValues?.[discriminator]?.has(picked as never),
        );
        return option ? membersAt(option, data, rest) : [];
      }
      for (const option of def.options) {
        const names = membersAt(option, data, rest);
        if (names.length > 0) return names;
      }
      return [];
    } else return [];
  }
}

/** `value[key]` of parsed JSON, or undefined. */
function member(value: unknown, key: PropertyKey | undefined): unknown {
  return typeof value === 'object' && value !== null && key !== undefined ? (value as Record<PropertyKey, unknown>)[key] : undefined;
}
