import { SpillwayError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';
import type { ValidatedMessage } from '../messages/send-request.ts';
import type { Storage } from '../ports/storage.ts';
import { hasClientStorage } from '../ports/client-storage.ts';
import { countSegments } from '../sms/segments.ts';
import { PHONE_VARIABLE, applyPhoneVariables, unfilledPhoneVariables, unknownPlaceholderMessage } from './phone-variables.ts';

/** Digits of a recipient, as per-phone data is keyed. */
const digitsOf = (to: string) => to.replace(/^\+/, '');

/**
 * The per-phone data of the recipients whose texts name a `%member%`, each number read once (null
 * for a number without data); null when no text names one or the storage keeps no client records.
 */
async function phoneDataOf(
  storage: Storage,
  accountId: number,
  texts: readonly { to: string; text: string }[],
): Promise<Map<string, Record<string, unknown> | null> | null> {
  if (!hasClientStorage(storage)) return null;
  const phones = new Set(texts.filter((a) => PHONE_VARIABLE.test(a.text)).map((a) => digitsOf(a.to)));
  if (phones.size === 0) return null;
  const data = new Map<string, Record<string, unknown> | null>();
  for (const phone of phones) data.set(phone, (await storage.getPhoneData(accountId, phone))?.data ?? null);
  return data;
}

/**
 * Fills `%member%` in texts with the recipient's per-phone data (`/api/external-data/user-bonuses`),
 * reading each number's data once. Texts without such a token, and storages without client
 * records, are left alone. SMS parts are counted again on the filled text.
 */
export async function fillPhoneVariables<A extends { to: string; text: string; channel: string; partsCount: number }>(
  storage: Storage,
  accountId: number,
  attempts: A[],
): Promise<A[]> {
  const data = await phoneDataOf(storage, accountId, attempts);
  return data ? fillWith(data, attempts) : attempts;
}

function fillWith<A extends { to: string; text: string; channel: string; partsCount: number }>(
  data: ReadonlyMap<string, Record<string, unknown> | null>,
  attempts: A[],
): A[] {
  return attempts.map((a) => {
    const values = PHONE_VARIABLE.test(a.text) ? data.get(digitsOf(a.to)) : null;
    if (!values) return a;
    const text = applyPhoneVariables(a.text, values);
    return text === a.text ? a : { ...a, text, partsCount: a.channel === 'sms' ? countSegments(text).parts : a.partsCount };
  });
}

/** A text to check with {@link unknownPhoneVariables}: its recipient, and where the request holds it. */
export interface PlaceholderText {
  to: string;
  text: string;
  /** `messages[0].text`: where a placeholder it cannot fill is reported. */
  path: string;
  /** The field named in the message when `path` is not the text's own (`text`, for a broadcast's template). */
  field?: string;
}

/**
 * One error per text naming a `%member%` its recipient's per-phone data cannot fill (the number has
 * no data, or no such member, or one that is no string, number or boolean), at the text's path.
 * Such a text used to reach the recipient as written (`Hello %name%`). Nothing for storages without
 * client records, where no text can be filled. Percent-encoded bytes of links (`%C3%`) are no
 * placeholders (see `unfilledPhoneVariables`).
 */
export async function unknownPhoneVariables(
  storage: Storage,
  accountId: number,
  texts: readonly PlaceholderText[],
): Promise<ErrorDetail[]> {
  const data = await phoneDataOf(storage, accountId, texts);
  return data ? unknownIn(data, texts) : [];
}

function unknownIn(data: ReadonlyMap<string, Record<string, unknown> | null>, texts: readonly PlaceholderText[]): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const t of texts) {
    const phone = digitsOf(t.to);
    const values = data.get(phone);
    if (values === undefined) continue;
    const unknown = unfilledPhoneVariables(t.text, values);
    if (unknown.length === 0) continue;
    details.push({ path: t.path, message: unknownPlaceholderMessage(unknown, phone, values, t.field) });
  }
  return details;
}

/** The message of the error listing `texts` texts with placeholders their recipients' data cannot fill. */
function unknownPlaceholdersSummary(texts: number): string {
  return texts === 1
    ? "A text names a placeholder its recipient's per-phone data cannot fill"
    : `${texts} texts name placeholders their recipients' per-phone data cannot fill`;
}

/**
 * Fills the per-phone variables of messaging API messages at acceptance (one pass over the whole
 * request's attempts, each number's data read once), so that the price is the sent text's.
 * @throws SpillwayError `validation_failed` at `messages[i].text` / `messages[i].fallbacks[j].text`
 *   for every text naming a placeholder its recipient's data cannot fill.
 */
export async function fillMessageTexts(storage: Storage, accountId: number, checked: ValidatedMessage[]): Promise<ValidatedMessage[]> {
  // A loop: V8's generic flatMap cost about a microsecond on every single send.
  const attempts: Array<ValidatedMessage['attempts'][number]> = [];
  for (const v of checked) for (const a of v.attempts) attempts.push(a);
  const data = await phoneDataOf(storage, accountId, attempts);
  if (!data) return checked;
  const details: ErrorDetail[] = [];
  for (const v of checked) {
    const texts = v.attempts.map((a, j) => ({
      to: a.to,
      text: a.text,
      path: j === 0 ? `messages[${v.index}].text` : `messages[${v.index}].fallbacks[${j - 1}].text`,
    }));
    details.push(...unknownIn(data, texts));
  }
  if (details.length > 0) throw new SpillwayError('validation_failed', unknownPlaceholdersSummary(details.length), details);
  const filled = fillWith(data, attempts);
  let next = 0;
  return checked.map((v) => ({ ...v, attempts: v.attempts.map(() => filled[next++]!) }));
}
