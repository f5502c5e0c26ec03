import type { ErrorDetail } from '../errors.ts';
import type { ValidatedCascade } from './cascade-request.ts';
import { findVariables, isLinkValue } from './variables.ts';
import type { VariableRef } from './variables.ts';

/** A variable token of a cascade message, with the field that holds it and that field's path. */
export interface CascadeVariableRef extends VariableRef {
  /** `text`, `chatappMessage.text`, ... */
  field: string;
  /** `[0].text`: the message's path, then the field. */
  path: string;
}

/** The texts of a cascade message that steps send, by field (`text`, `chatappMessage.text`, ...), those given only. */
export function cascadeTexts(c: ValidatedCascade): [field: string, text: string][] {
  const fields: [string, string | null | undefined][] = [
    ['text', c.text],
    ['chatappMessage.text', c.chatappMessage?.text],
    ['chatappMessage.fallbackText', c.chatappMessage?.fallbackText],
    ['messengerMessage.text', c.messengerMessage?.text],
  ];
  return fields.filter((f): f is [string, string] => Boolean(f[1]));
}

/** Every variable token in the texts of a cascade message. */
export function cascadeVariableRefs(c: ValidatedCascade): CascadeVariableRef[] {
  return cascadeTexts(c).flatMap(([field, text]) => findVariables(text).map((ref) => ({ ...ref, field, path: `${c.path}.${field}` })));
}

/** The value of variable `id` for a message: its inline variables first, then the account's stored ones. */
export function variableValue(c: ValidatedCascade, stored: ReadonlyMap<string, string>, id: string): string | undefined {
  return c.variables.find((v) => v.id === id)?.value ?? stored.get(id);
}

/** Options of {@link checkCascadeVariables}. */
export interface CheckVariablesOptions {
  /**
   * Where a problem is addressed. `'field'`: at the field holding the token (`[0].text`), for
   * messages that carry their own texts. `'variables'`: at the message's own variables, for texts
   * shared by many messages (a broadcast's template, whose field names no one): an unknown
   * variable at `[3].variables`, an inline value that is no link at `[3].variables[1].value`; a
   * stored value that is no link is the same for all, so it stays at the field.
   * @default 'field'
   */
  at?: 'field' | 'variables';
}

/** How an unknown variable becomes known. */
const REMEDY = 'give it in variables or upload it to /api/items first';

/**
 * Checks at submission that every variable the messages use is known (inline or stored) and that
 * `%url=%` / `%short_url=%` ones hold an http(s) URL. The engine loads the ids of
 * {@link cascadeVariableRefs} from storage first, and answers 400 with these details.
 */
export function checkCascadeVariables(
  cascades: readonly ValidatedCascade[],
  stored: ReadonlyMap<string, string>,
  options: CheckVariablesOptions = {},
): ErrorDetail[] {
  const own = options.at === 'variables';
  const errors: ErrorDetail[] = [];
  for (const c of cascades) {
    for (const ref of cascadeVariableRefs(c)) {
      const value = variableValue(c, stored, ref.id);
      if (value === undefined) {
        errors.push(
          own
            ? { path: `${c.path}.variables`, message: `unknown variable ${ref.token} in ${ref.field}: ${REMEDY}` }
            : { path: ref.path, message: `unknown variable ${ref.token}: ${REMEDY}` },
        );
      } else if (ref.kind !== 'name' && !isLinkValue(value)) {
        // Addressed at the inline value when the message gave one (which `variableValue` takes first).
        const inline = own ? c.variables.findIndex((v) => v.id === ref.id) : -1;
        const path = inline >= 0 ? `${c.path}.variables[${inline}].value` : ref.path;
        errors.push({ path, message: `variable ${ref.token} is not an http(s) URL` });
      }
    }
  }
  return errors;
}
