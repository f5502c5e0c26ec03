import type { Clock } from '../clock.ts';
import type { AccountService } from '../engine/engine-types.ts';
import { fromMicros, toMicros } from '../engine/money.ts';
import { SpillwayError } from '../errors.ts';
import type { ClientStorage, LinkedClientRecord, NewLinkedClient, PageQuery } from '../ports/client-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { Account, AlphaName } from '../types/account.ts';
import type { ClientLink, Organization } from '../types/client.ts';
import { organizationRequestSchema, parseRequest, provisionClientSchema, referralClientSchema } from './client-requests.ts';
import { createClientTransfers } from './client-transfer.ts';
import type { ClientTransfer, ClientTransferOptions } from './client-transfer.ts';
import { refusingUnstorable } from '../validation/nul.ts';

/** A sub-client created by `POST /api/client/provision`; the API key is shown once. */
export interface ProvisionedClient {
  account: Account;
  apiKey: string;
  /** Opening balance, currency units. */
  balance: number;
  alphaNames: AlphaName[];
  link: ClientLink;
}

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
  provision(parentId: number, body: unknown): Promise<ProvisionedClient>;
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
  addOrganization(accountId: number, body: unknown): Promise<Organization>;
  listOrganizations(accountId: number, page: PageQuery): Promise<{ items: Organization[]; total: number }>;
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

  /** A conflict of the storage: a login or a referral id taken by a request that passed the same checks at the same time. */
  const isConflict = (error: unknown) => error instanceof SpillwayError && error.code === 'conflict';

  // Every call refuses U+0000 at its path before it runs, as the engine's own services do.
  return refusingUnstorable({
    async provision(parentId, body) {
      const req = parseRequest(provisionClientSchema, body, 'client');
      const parent = await accounts.get(parentId);
      if (!parent) throw new SpillwayError('not_found', `account ${parentId} does not exist`);
      // Only names the parent may send from can be shared, on the parent's channels.
      const shared: AlphaName[] = [];
      const missing: string[] = [];
      for (const name of new Set(req.alphaNames ?? [])) {
        const own = await storage.getAlphaName(parentId, name);
        if (own) shared.push(own);
        else missing.push(name);
      }
      if (missing.length) {
        throw new SpillwayError(
          'validation_failed',
          'alphaNames must be approved alpha-names of the account',
          missing.map((name) => ({ path: `alphaNames[${(req.alphaNames ?? []).indexOf(name)}]`, message: `'${name}' is not approved` })),
        );
      }
      await loginFree(req.login);
      const micros = toMicros(req.balance ?? 0);
      const uncovered = () => new SpillwayError('payment_required', 'the balance does not cover the opening balance of the client');
      if (micros > 0 && (await storage.getBalance(parentId)) < micros) throw uncovered();
      // The slow part (the password's hash) and the key first; then the client whole in one
      // transaction: the account, its link, its names, its key and its opening balance with the
      // parent's debit. However the process stops, the parent finds the client whole, or nothing of
      // it and the money still its own (the login free for the retry).
      const prepared = await accounts.prepare(
        { login: req.login, password: req.password, name: req.name ?? req.login, currency: parent.currency },
        'provisioned',
      );
      const { key, ...apiKey } = prepared.key!;
      const [debit, credit] = unassignedRows(parent.login, req.login, micros, 'to_client');
      const client: NewLinkedClient = {
        account: prepared.account,
        link: { parentId, kind: 'sub', referralId: null, createdAt: clock.now() },
        alphaNames: shared.map((a) => ({ name: a.name, channels: a.channels })),
        apiKey,
        opening: micros > 0 ? { debit: { accountId: parentId, ...debit }, credit } : null,
      };
      const made = await storage.createLinkedClient(client, clock.now()).catch(async (error: unknown) => {
        // Taken meanwhile: answered as the check above answers.
        if (isConflict(error)) await loginFree(req.login);
        throw error;
      });
      // Spent meanwhile by the parent's other requests: nothing was created.
      if (!made) throw uncovered();
      return { account: made.account, apiKey: key, balance: fromMicros(micros), alphaNames: made.alphaNames, link: made.link };
    },

    async registerReferral(referrerId, referralId, body) {
      const req = parseRequest(referralClientSchema, body, 'referred client');
      /** The client registered under the referral id already (a replay), or null; a 409 for another login. */
      const registered = async () => {
        const known = await storage.getClientLinkByReferral(referrerId, referralId);
        if (!known) return null;
        const account = await accounts.get(known.childId);
        if (account?.login === req.login) return { account, created: false };
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

    async addOrganization(accountId, body) {
      const req = parseRequest(organizationRequestSchema, body, 'organization');
      return storage.createOrganization(
        { accountId, name: req.name, taxId: req.taxId, address: req.address ?? null, email: req.email ?? null, phone: req.phone ?? null },
        clock.now(),
      );
    },

    listOrganizations: (accountId, page) => storage.listOrganizations(accountId, page),

    async deleteOrganization(accountId, id) {
      // Nothing refers to an organization (chat hub company tokens are the account's): it goes alone.
      if (!(await storage.deleteOrganization(accountId, id))) {
        throw new SpillwayError('not_found', `organization ${id} does not exist`);
      }
    },
  });
}
