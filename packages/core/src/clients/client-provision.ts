import type { Clock } from '../clock.ts';
import type { AccountService } from '../engine/engine-types.ts';
import { fromMicros, toMicros } from '../engine/money.ts';
import { SpillwayError, isConflict } from '../errors.ts';
import type { ClientStorage, NewLinkedClient } from '../ports/client-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { Account, AlphaName } from '../types/account.ts';
import type { ClientLink, ClientProvisionRecord } from '../types/client.ts';
import { checkIdempotencyKey, parseRequest, provisionClientSchema } from './client-requests.ts';
import type { ProvisionClientRequest } from './client-requests.ts';
import { CLIENT_TRANSFER_KEY_RETENTION_MS } from './client-transfer.ts';
import type { createClientTransfers } from './client-transfer.ts';

/** A sub-client created by `POST /api/client/provision`. */
export interface ProvisionedClient {
  account: Account;
  /**
   * The sub-client's API key in clear, answered once: null when `replayed`, for it is never kept
   * (the parent issues a new one with `POST /api/client/clients/{clientId}/keys`).
   */
  apiKey: string | null;
  /** The id of that key, to revoke it; null for a client made without one. */
  keyId: number | null;
  /** Opening balance, currency units. */
  balance: number;
  alphaNames: Array<Pick<AlphaName, 'name' | 'channels'>>;
  link: ClientLink;
  /**
   * True when an earlier request with the same idempotency key created the client: this answer
   * is that client's, nothing was created now, and `apiKey` is null.
   */
  replayed: boolean;
}

/** Options of a provisioning. */
export interface ClientProvisionOptions {
  /**
   * The parent's key for this one provisioning (`Idempotency-Key`), kept per parent for
   * {@link CLIENT_PROVISION_KEY_RETENTION_MS}: a request with a key already used for the same
   * client answers that client again (without its API key) and creates nothing; used for another
   * request (login, password, name, balance or alpha-names) it is a `conflict`.
   */
  idempotencyKey?: string | undefined;
}

/**
 * How long the idempotency key of a provisioning is kept, ms (7 days, as a transfer's): a request
 * with the key within it answers the client it made; after it the key is forgotten.
 */
export const CLIENT_PROVISION_KEY_RETENTION_MS = CLIENT_TRANSFER_KEY_RETENTION_MS;

/** What differs between a recorded provisioning and the request that sent its key again: paths of the request. */
async function differences(recorded: ClientProvisionRecord, req: ProvisionClientRequest, accounts: AccountService) {
  const out: Array<{ path: string; message: string }> = [];
  if (recorded.login !== req.login) out.push({ path: 'login', message: `the key created client '${recorded.login}'` });
  // The password is kept only as the client's slow hash: checked against it, never recorded.
  if ((await accounts.authenticatePassword(recorded.login, req.password))?.id !== recorded.clientId) {
    out.push({ path: 'password', message: 'the key created the client with another password' });
  }
  // A name left to default to the login (then and now) differs only with the login.
  const defaulted = req.name === undefined && recorded.name === recorded.login;
  if (!defaulted && recorded.name !== (req.name ?? req.login)) {
    out.push({ path: 'name', message: `the key created client named '${recorded.name}'` });
  }
  if (recorded.balance !== toMicros(req.balance ?? 0)) {
    out.push({ path: 'balance', message: `the key moved an opening balance of ${fromMicros(recorded.balance)}` });
  }
  const names = [...new Set(req.alphaNames ?? [])].sort();
  const had = recorded.alphaNames.map((a) => a.name).sort();
  if (names.join('\n') !== had.join('\n')) {
    out.push({ path: 'alphaNames', message: had.length ? `the key shared ${had.join(', ')}` : 'the key shared no alpha-name' });
  }
  return out;
}

/** Provisioning of sub-clients (`POST /api/client/provision`), retry-safe under an idempotency key. */
export function createClientProvisioning(deps: {
  storage: Storage & ClientStorage;
  accounts: AccountService;
  clock: Clock;
  unassignedRows: ReturnType<typeof createClientTransfers>['unassignedRows'];
  /** Throws the `conflict` of a taken login (at `login`). */
  loginFree: (login: string) => Promise<void>;
}) {
  const { storage, accounts, clock, unassignedRows, loginFree } = deps;

  /** The client a recorded key made, answered again (without its clear key), or a 409 naming what differs. */
  const replay = async (recorded: ClientProvisionRecord, req: ProvisionClientRequest): Promise<ProvisionedClient> => {
    const differs = await differences(recorded, req, accounts);
    if (differs.length) {
      throw new SpillwayError(
        'conflict',
        `Idempotency-Key '${recorded.idempotencyKey}' was used for another client: nothing was created`,
        differs,
      );
    }
    const [account, link] = await Promise.all([accounts.get(recorded.clientId), storage.getClientLink(recorded.clientId)]);
    if (!account || !link) throw new Error(`client ${recorded.clientId} of a recorded provisioning is not there`);
    return {
      account,
      apiKey: null,
      keyId: recorded.keyId,
      balance: fromMicros(recorded.balance),
      alphaNames: recorded.alphaNames,
      link,
      replayed: true,
    };
  };

  return async function provision(parentId: number, body: unknown, options: ClientProvisionOptions = {}): Promise<ProvisionedClient> {
    const req = parseRequest(provisionClientSchema, body, 'client');
    const key = options.idempotencyKey;
    if (key === undefined) return create(parentId, req, null);
    checkIdempotencyKey(key);
    // Pruned on write, before the key is looked up: a key past its retention is free again. A
    // known key is answered before the checks: the login is the client's now, the money moved.
    await storage.pruneClientProvisions(clock.now() - CLIENT_PROVISION_KEY_RETENTION_MS);
    const recorded = await storage.getClientProvision(parentId, key);
    if (recorded) return replay(recorded, req);
    try {
      return await create(parentId, req, key);
    } catch (error) {
      // Refused because a request with the same key (a retry arriving together) created the
      // client meanwhile (its login taken, the money spent, its key recorded): that client, or
      // the 409 naming what differs.
      const meanwhile = await storage.getClientProvision(parentId, key);
      if (meanwhile) return replay(meanwhile, req);
      throw error;
    }
  };

  /** Creates the client, its key recorded under `key` when there is one. */
  async function create(parentId: number, req: ProvisionClientRequest, key: string | null): Promise<ProvisionedClient> {
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
    // transaction: the account, its link, its names, its key, its opening balance with the
    // parent's debit, and the parent's idempotency key. However the process stops, the parent
    // finds the client whole (its key recorded), or nothing of it and the money still its own
    // (the login and the key free for the retry).
    const prepared = await accounts.prepare(
      { login: req.login, password: req.password, name: req.name ?? req.login, currency: parent.currency },
      'provisioned',
    );
    const { key: clearKey, ...apiKey } = prepared.key!;
    const [debit, credit] = unassignedRows(parent.login, req.login, micros, 'to_client');
    const client: NewLinkedClient = {
      account: prepared.account,
      link: { parentId, kind: 'sub', referralId: null, createdAt: clock.now() },
      alphaNames: shared.map((a) => ({ name: a.name, channels: a.channels })),
      apiKey,
      opening: micros > 0 ? { debit: { accountId: parentId, ...debit }, credit } : null,
      idempotencyKey: key,
    };
    const made = await storage.createLinkedClient(client, clock.now()).catch(async (error: unknown) => {
      // Taken meanwhile: answered as the check above answers.
      if (isConflict(error)) await loginFree(req.login);
      throw error;
    });
    // Spent meanwhile by the parent's other requests: nothing was created.
    if (!made) throw uncovered();
    return {
      account: made.account,
      apiKey: clearKey,
      keyId: made.apiKey?.id ?? null,
      balance: fromMicros(micros),
      alphaNames: made.alphaNames.map((a) => ({ name: a.name, channels: a.channels })),
      link: made.link,
      replayed: false,
    };
  }
}
