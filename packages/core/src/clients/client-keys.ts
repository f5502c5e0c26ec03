import type { AccountService } from '../engine/engine-types.ts';
import { SpillwayError } from '../errors.ts';
import type { ClientStorage } from '../ports/client-storage.ts';
import type { Account, ApiKey } from '../types/account.ts';
import { clientKeyRequestSchema, parseRequest } from './client-requests.ts';
import { ownSubClient } from './own-sub-client.ts';

/** A new API key of a sub-client: `key` in clear, answered once and never stored. */
export interface IssuedClientKey {
  client: Account;
  key: string;
  apiKey: ApiKey;
}

/**
 * The API keys of a parent's own sub-clients (`/api/client/clients/{clientId}/keys`): the key a
 * provisioning showed once may be lost, and the parent holds the client's credentials. Each call
 * answers 404 for an account that is not the parent's own sub-client, as the transfers do.
 */
export function createClientKeys(deps: { storage: ClientStorage; accounts: AccountService }) {
  const { storage, accounts } = deps;
  return {
    /** Issues a new key of the sub-client; its other keys keep working. */
    async issueClientKey(parentId: number, clientId: number, body: unknown): Promise<IssuedClientKey> {
      const req = parseRequest(clientKeyRequestSchema, body, 'API key');
      const client = await ownSubClient(storage, accounts, parentId, clientId);
      const { key, apiKey } = await accounts.createKey(client.id, req.label);
      return { client, key, apiKey };
    },

    /** The sub-client's keys that work (not revoked), oldest first; never a clear key. */
    async listClientKeys(parentId: number, clientId: number): Promise<ApiKey[]> {
      await ownSubClient(storage, accounts, parentId, clientId);
      return accounts.listKeys(clientId);
    },

    /**
     * Revokes a key of the sub-client: refused from the next request on, in every process (the
     * storage bumps the credential revision with it). 404 for a key that is not one of its keys
     * that work (another account's, revoked already, unknown).
     */
    async revokeClientKey(parentId: number, clientId: number, keyId: number): Promise<void> {
      await ownSubClient(storage, accounts, parentId, clientId);
      if (!(await accounts.revokeKey(clientId, keyId))) {
        throw new SpillwayError('not_found', `API key ${keyId} is not a key of account ${clientId} (or is revoked already)`);
      }
    },
  };
}
