import type { AccountService } from '../engine/engine-types.ts';
import { SpillwayError } from '../errors.ts';
import type { ClientStorage } from '../ports/client-storage.ts';
import type { Account } from '../types/account.ts';

/**
 * The account `clientId` when it is a sub-client of `parentId` (provisioned by it); otherwise a
 * `not_found`, as for an unknown id: referred clients are independent accounts, and a sub-client's
 * own sub-clients are its own.
 */
export async function ownSubClient(storage: ClientStorage, accounts: AccountService, parentId: number, clientId: number): Promise<Account> {
  const link = await storage.getClientLink(clientId);
  const client = link?.parentId === parentId && link.kind === 'sub' ? await accounts.get(clientId) : null;
  if (!client) throw new SpillwayError('not_found', `account ${clientId} is not a sub-client of this account`);
  return client;
}
