import type { ErrorDetail } from '../errors.ts';
import type { ClientStorage } from '../ports/client-storage.ts';

/**
 * Whether each of `names` is one of the account's approved messenger bots (`POST /bots/application`,
 * kind `messenger_bot`, approved): a detail at its path for every other. The empty name, the
 * account's only bot, is always taken: an account may bind chats before naming its bot. A misspelt
 * bot name bound a chat no send would ever find, or looked up one that never existed.
 */
export async function unknownBotNames(
  storage: ClientStorage,
  accountId: number,
  names: ReadonlyArray<{ botName: string; path: string }>,
): Promise<ErrorDetail[]> {
  const named = names.filter((n) => n.botName !== '');
  if (named.length === 0) return [];
  const approved = (await storage.listSenderApplications(accountId, { kind: 'messenger_bot', status: 'approved' })).map((a) => a.name);
  const known = new Set(approved);
  const which =
    approved.length > 0 ? `its approved messenger bots are ${[...known].sort().join(', ')}` : 'it has no approved messenger bot';
  return named
    .filter((n) => !known.has(n.botName))
    .map((n) => ({
      path: n.path,
      message: `unknown bot "${n.botName}": ${which} (apply with POST /bots/application, or leave botName out for the account's only bot)`,
    }));
}
