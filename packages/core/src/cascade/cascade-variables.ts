import type { ErrorDetail } from '../errors.ts';
import type { ValidatedCascade } from './cascade-request.ts';
import { findVariables, isLinkValue } from './variables.ts';
import type { VariableRef } from './variables.ts';

/** A variable token of a cascade message, with the path of the field that holds it. */
export interface CascadeVariableRef extends VariableRef {
  path: string;
}

/** Every variable token in the texts of a cascade message. */
export function cascadeVariableRefs(c: ValidatedCascade): CascadeVariableRef[] {
  const fields: [string, string | null | undefined][] = [
    ['text', c.text],
    ['chatappMessage.text', c.chatappMessage?.text],
    ['chatappMessage.fallbackText', c.chatappMessage?.fallbackText],
    ['messengerMessage.text', c.messengerMessage?.text],
  ];
  return fields.flatMap(([field, text]) => (text ? findVariables(text).map((ref) => ({ ...ref, path: `${c.path}.${field}` })) : []));
}

/** The value of variable `id` for a message: its inline variables first, then the account's stored ones. */
export function variableValue(c: ValidatedCascade, stored: ReadonlyMap<string, string>, id: string): string | undefined {
  return c.variables.find((v) => v.id === id)?.value ?? stored.get(id);
}

/**
 * Checks at submission that every variable the messages use is known (inline or stored) and that
 * `%url=%` / `%short_url=%` ones hold an http(s) URL. The engine loads the ids of
 * {@link cascadeVariableRefs} from storage first, and answers 400 with these details.
 */
export function checkCascadeVariables(cascades: readonly ValidatedCascade[], stored: ReadonlyMap<string, string>): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  for (const c of cascades) {
    for (const ref of cascadeVariableRefs(c)) {
      const value = variableValue(c, stored, ref.id);
      if (value === undefined) {
        errors.push({ path: ref.path, message: `unknown variable ${ref.token}: upload it to /api/items first` });
      } else if (ref.kind !== 'name' && !isLinkValue(value)) {
        errors.push({ path: ref.path, message: `variable ${ref.token} is not an http(s) URL` });
      }
    }
  }
  return errors;
}
