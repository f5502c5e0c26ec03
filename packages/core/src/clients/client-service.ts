import type { Clock } from '../clock.ts';
import type { AccountService } from '../engine/engine-types.ts';
import { fromMicros, toMicros } from '../engine/money.ts';
import { SpillwayError } from '../errors.ts';
import type { ClientStorage, PageQuery } from '../ports/client-storage.ts';
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

  const { moveMoney, transfer } = createClientTransfers({ storage, accounts, clock });

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
      // The client first, linked to its parent, then its opening balance in one transaction with
      // the parent's debit: however the process stops, the money is with one of the two, and the
      // client is listed among the parent's.
      const account = await accounts.create({
        login: req.login,
        password: req.password,
        name: req.name ?? req.login,
        currency: parent.currency,
      });
      const link = await storage.linkClient({ childId: account.id, parentId, kind: 'sub', referralId: null, createdAt: clock.now() });
      const alphaNames: AlphaName[] = [];
      for (const a of shared) alphaNames.push(await accounts.approveAlphaName(account.id, a.name, a.channels));
      if (micros > 0) {
        const moved = await moveMoney(parent, account, micros, 'to_client');
        // Spent meanwhile by the parent's other requests: the client stays, without the money.
        if (!moved) throw new SpillwayError('payment_required', `${uncovered().message}: client ${req.login} was created with none`);
      }
      const { key } = await accounts.createKey(account.id, 'provisioned');
      return { account, apiKey: key, balance: fromMicros(micros), alphaNames, link };
    },

    async registerReferral(referrerId, referralId, body) {
      const req = parseRequest(referralClientSchema, body, 'referred client');
      const known = await storage.getClientLinkByReferral(referrerId, referralId);
      if (known) {
        const account = await accounts.get(known.childId);
        if (account?.login === req.login) return { account, created: false };
        throw new SpillwayError('conflict', `referral ${referralId} is used by another client`);
      }
      await loginFree(req.login);
      const referrer = await accounts.get(referrerId);
      if (!referrer) throw new SpillwayError('not_found', `account ${referrerId} does not exist`);
      const account = await accounts.create({
        login: req.login,
        password: req.password,
        name: req.name ?? req.login,
        currency: referrer.currency,
      });
      await storage.linkClient({ childId: account.id, parentId: referrerId, kind: 'referral', referralId, createdAt: clock.now() });
      return { account, created: true };
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
