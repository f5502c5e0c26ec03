import type { Clock } from '../clock.ts';
import type { AccountService } from '../engine/engine-types.ts';
import { fromMicros } from '../engine/money.ts';
import { SpillwayError, isConflict } from '../errors.ts';
import type { ClientStorage, LinkedClientRecord, NewLinkedClient, PageQuery } from '../ports/client-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { Account, ApiKey } from '../types/account.ts';
import type { ClientLink, Organization } from '../types/client.ts';
import { organizationRequestSchema, parseRequest, referralClientSchema } from './client-requests.ts';
import { createClientKeys } from './client-keys.ts';
import type { IssuedClientKey } from './client-keys.ts';
import { createClientProvisioning } from './client-provision.ts';
import type { ClientProvisionOptions, ProvisionedClient } from './client-provision.ts';
import { createClientTransfers } from './client-transfer.ts';
import type { ClientTransfer, ClientTransferOptions } from './client-transfer.ts';
import { storableCalls } from '../validation/storable-calls.ts';
import { loginKey } from '../storage/login-key.ts';

export type { ProvisionedClient } from './client-provision.ts';

/** A client linked to an account, with its balance (`GET /api/client/clients`). */
export interface LinkedClient {
  account: Account;
  link: ClientLink;
  balance: number;
}

/** What {@link createClientService} needs. */
export interface ClientServiceDeps {
  storage: Storage & ClientStorage;
  accounts: AccountService;
  clock: Clock;
}

/** Sub-clients, referred clients and organizations of an account. */
export interface ClientService {
  /**
   * Creates a sub-client of `parentId` whole (account, link, shared alpha-names, API key, opening
   * balance from the parent's wallet) in one transaction. With `idempotencyKey`, the key is
   * recorded in that transaction: the same key again answers the same client (`replayed`, its API
   * key null: shown once, never kept) and creates nothing, and a `conflict` for another request.
   */
  provision(parentId: number, body: unknown, options?: ClientProvisionOptions): Promise<ProvisionedClient>;
  /** Registers a client referred by `referrerId` under `referralId`; a replay of the same login answers the same client. */
  registerReferral(referrerId: number, referralId: string, body: unknown): Promise<{ account: Account; created: boolean }>;
  listClients(parentId: number, kind?: ClientLink['kind']): Promise<LinkedClient[]>;
  /**
   * Moves money from the parent to its sub-client (`to_client`) or takes the sub-client's back
   * (`from_client`), both wallet rows in one transaction. 404 for an account that is not the
   * parent's own sub-client, 402 when the paying wallet does not cover it. With
   * `idempotencyKey`, the key is recorded in that transaction: the same key again answers the
   * same transfer (`replayed`) without moving money, and a `conflict` for another transfer.
   */
  transfer(parentId: number, clientId: number, body: unknown, options?: ClientTransferOptions): Promise<ClientTransfer>;
  /** Issues a new API key of the parent's own sub-client (its clear key answered once); 404 for another account. */
  issueClientKey(parentId: number, clientId: number, body: unknown): Promise<IssuedClientKey>;
  /** The working API keys of the parent's own sub-client, oldest first; 404 for another account. */
  listClientKeys(parentId: number, clientId: number): Promise<ApiKey[]>;
  /**
   * Revokes an API key of the parent's own sub-client, refused at once in every process; 404 for
   * another account, or a key that is not one of the sub-client's working keys.
   */
  revokeClientKey(parentId: number, clientId: number, keyId: number): Promise<void>;
  addOrganization(accountId: number, body: unknown): Promise<Organization>;
  listOrganizations(accountId: number, page: PageQuery): Promise<{ items: Organization[]; total: number }>;
  /** An organization of the account, whole; 404 for another account's or an unknown one. */
  getOrganization(accountId: number, id: number): Promise<Organization>;
  /** Deletes an organization of the account; 404 for another account's or an unknown one. */
  deleteOrganization(accountId: number, id: number): Promise<void>;
}

/** Sub-clients, referrals and organizations of the client-management API. */
export function createClientService(deps: ClientServiceDeps): ClientService {
  const { storage, accounts, clock } = deps;

  const loginFree = async (login: string) => {
    if (await accounts.getByLogin(login)) {
      throw new SpillwayError('conflict', `login '${login}' is taken`, [{ path: 'login', message: 'taken' }]);
    }
  };

  const { unassignedRows, transfer } = createClientTransfers({ storage, accounts, clock });

  const provision = createClientProvisioning({ storage, accounts, clock, unassignedRows, loginFree });
  const keys = createClientKeys({ storage, accounts });

  /** A conflict of the storage: a login or a referral id taken by a request that passed the same checks at the same time. */

  // Every call is looked through before it runs, as the engine's own services are: U+0000 refused
  // at its path, lone surrogates made U+FFFD.
  return storableCalls({
    provision,

    async registerReferral(referrerId, referralId, body) {
      const req = parseRequest(referralClientSchema, body, 'referred client');
      /** The client registered under the referral id already (a replay), or null; a 409 for another login. */
      const registered = async () => {
        const known = await storage.getClientLinkByReferral(referrerId, referralId);
        if (!known) return null;
        const account = await accounts.get(known.childId);
        // The same login in any case: logins are one regardless of case.
        if (account && loginKey(account.login) === loginKey(req.login)) return { account, created: false };
        throw new SpillwayError('conflict', `referral ${referralId} is used by another client`);
      };
      const known = await registered();
      if (known) return known;
      await loginFree(req.login);
      const referrer = await accounts.get(referrerId);
      if (!referrer) throw new SpillwayError('not_found', `account ${referrerId} does not exist`);
      const prepared = await accounts.prepare({
        login: req.login,
        password: req.password,
        name: req.name ?? req.login,
        currency: referrer.currency,
      });
      // The account with its link in one transaction: a stop between the two once left an account
      // holding the login under no referral, and the retry was a 409.
      const client: NewLinkedClient = {
        account: prepared.account,
        link: { parentId: referrerId, kind: 'referral', referralId, createdAt: clock.now() },
        alphaNames: [],
        apiKey: null,
        opening: null,
      };
      let made: LinkedClientRecord | null;
      try {
        made = await storage.createLinkedClient(client, clock.now());
      } catch (error) {
        // Registered meanwhile by the same request (a replay), or the login or the referral id taken
        // by another: answered as the checks above answer.
        if (isConflict(error)) {
          const again = await registered();
          if (again) return again;
          await loginFree(req.login);
        }
        throw error;
      }
      // Null only for an opening balance not covered: a referred client gets none.
      return { account: made!.account, created: true };
    },

    async listClients(parentId, kind) {
      const links = await storage.listClientLinks(parentId, kind);
      const out: LinkedClient[] = [];
      for (const link of links) {
        const account = await accounts.get(link.childId);
        if (account) out.push({ account, link, balance: fromMicros(await storage.getBalance(account.id)) });
      }
      return out;
    },

    transfer,
    ...keys,

    async addOrganization(accountId, body) {
      const req = parseRequest(organizationRequestSchema, body, 'organization');
      return storage.createOrganization(
        { accountId, name: req.name, taxId: req.taxId, address: req.address ?? null, email: req.email ?? null, phone: req.phone ?? null },
        clock.now(),
      );
    },

    listOrganizations: (accountId, page) => storage.listOrganizations(accountId, page),

    async getOrganization(accountId, id) {
      const found = await storage.getOrganization(accountId, id);
      if (!found) throw new SpillwayError('not_found', `organization ${id} does not exist`);
      return found;
    },

    async deleteOrganization(accountId, id) {
      // Nothing refers to an organization (chat hub company tokens are the account's): it goes alone.
      if (!(await storage.deleteOrganization(accountId, id))) {
        throw new SpillwayError('not_found', `organization ${id} does not exist`);
      }
    },
  });
}
