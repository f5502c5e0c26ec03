import type { Clock } from '../clock.ts';
import type { AccountService } from '../engine/engine-types.ts';
import { fromMicros, toMicros } from '../engine/money.ts';
import { SpillwayError } from '../errors.ts';
import type { NewWalletTransaction } from '../ports/account-storage.ts';
import type { ClientStorage } from '../ports/client-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { Account, WalletTransaction } from '../types/account.ts';
import type { ClientTransferDirection, ClientTransferRecord } from '../types/client.ts';
import { checkIdempotencyKey, clientTransferSchema, parseRequest } from './client-requests.ts';
import { ownSubClient } from './own-sub-client.ts';

/** Money moved between a parent and its sub-client (`POST /api/client/clients/{clientId}/transfer`). */
export interface ClientTransfer {
  client: Account;
  direction: ClientTransferDirection;
  /** Currency units moved. */
  amount: number;
  /** The parent's balance after the move, currency units. */
  balance: number;
  /** The sub-client's balance after the move, currency units. */
  clientBalance: number;
  /**
   * True when an earlier request with the same idempotency key moved the money: this answer is
   * that move's, and nothing moved now.
   */
  replayed: boolean;
}

/** Options of a transfer. */
export interface ClientTransferOptions {
  /**
   * The client's key for this one transfer (`Idempotency-Key`), kept per parent for
   * {@link CLIENT_TRANSFER_KEY_RETENTION_MS}: a request with a key already used for the same
   * transfer answers that transfer again without moving money; used for another transfer (other
   * sub-client, amount or direction) it is a `conflict`.
   */
  idempotencyKey?: string | undefined;
}

type Party = Pick<Account, 'id' | 'login'>;

/**
 * How long the idempotency key of a transfer is kept, ms (7 days): a request with the key within
 * it answers the first move; after it the key is forgotten and moves money as a new one. Long
 * enough for any retry of a lost answer, and the keys' table stays as small as a week's transfers.
 */
export const CLIENT_TRANSFER_KEY_RETENTION_MS = 7 * 86_400_000;

/**
 * Money between a parent and its sub-client, shared by provisioning (the opening balance) and
 * transfers: both wallet rows in one transaction, each naming the other account.
 */
export function createClientTransfers(deps: { storage: Storage & ClientStorage; accounts: AccountService; clock: Clock }) {
  const { storage, accounts, clock } = deps;

  /**
   * The paying wallet's row (`adjustment`) and the other's (`topup`), in that order, each naming
   * the other account, without their accounts (provisioning writes the client's before it exists).
   */
  const unassignedRows = (parentLogin: string, clientLogin: string, micros: number, direction: ClientTransferDirection) => {
    const toClient = direction === 'to_client';
    const debit: Omit<NewWalletTransaction, 'accountId'> = {
      kind: 'adjustment',
      amount: -micros,
      messageId: null,
      description: toClient ? `transfer to sub-client ${clientLogin}` : `returned to ${parentLogin}`,
    };
    const credit: Omit<NewWalletTransaction, 'accountId'> = {
      kind: 'topup',
      amount: micros,
      messageId: null,
      description: toClient ? `transfer from ${parentLogin}` : `returned from sub-client ${clientLogin}`,
    };
    return [debit, credit] as const;
  };

  /** The paying wallet's row (`adjustment`) and the other's (`topup`), in that order. */
  const walletRows = (parent: Party, client: Party, micros: number, direction: ClientTransferDirection) => {
    const [payer, payee] = direction === 'to_client' ? [parent, client] : [client, parent];
    const [debit, credit] = unassignedRows(parent.login, client.login, micros, direction);
    return [
      { accountId: payer.id, ...debit },
      { accountId: payee.id, ...credit },
    ] as const;
  };

  /**
   * Moves `micros` between a parent and its sub-client in one transaction (`to_client`, or back
   * `from_client`): the paying wallet is debited only when it covers the amount. Null when it does
   * not cover it: nothing was written.
   */
  const moveMoney = (
    parent: Party,
    client: Party,
    micros: number,
    direction: ClientTransferDirection,
  ): Promise<[WalletTransaction, WalletTransaction] | null> =>
    storage.transferBalance(...walletRows(parent, client, micros, direction), clock.now());

  /** What differs between a recorded move and the request that sent its key again: paths of the request. */
  const differences = (recorded: ClientTransferRecord, clientId: number, micros: number, direction: ClientTransferDirection) => {
    const out: Array<{ path: string; message: string }> = [];
    if (recorded.clientId !== clientId) out.push({ path: 'clientId', message: `the key moved money of client ${recorded.clientId}` });
    if (recorded.amount !== micros) out.push({ path: 'amount', message: `the key moved ${fromMicros(recorded.amount)}` });
    if (recorded.direction !== direction) out.push({ path: 'direction', message: `the key moved money ${recorded.direction}` });
    return out;
  };

  /**
   * Moves money from the parent to its sub-client (`to_client`) or takes the sub-client's back
   * (`from_client`). 404 for an account that is not the parent's own sub-client, 402 when the
   * paying wallet does not cover it; with an idempotency key, the transfer that key made (or 409).
   */
  const transfer = async (
    parentId: number,
    clientId: number,
    body: unknown,
    options: ClientTransferOptions = {},
  ): Promise<ClientTransfer> => {
    const req = parseRequest(clientTransferSchema, body, 'transfer');
    const key = options.idempotencyKey;
    if (key !== undefined) checkIdempotencyKey(key);
    const [parent, client] = await Promise.all([accounts.get(parentId), ownSubClient(storage, accounts, parentId, clientId)]);
    if (!parent) throw new SpillwayError('not_found', `account ${clientId} is not a sub-client of this account`);
    if (parent.currency !== client.currency) {
      throw new SpillwayError('conflict', `the wallets count in ${parent.currency} and ${client.currency}: nothing to convert with`);
    }
    const micros = toMicros(req.amount);
    const toClient = req.direction === 'to_client';
    const uncovered = () =>
      new SpillwayError(
        'payment_required',
        toClient ? 'the balance does not cover the transfer' : `the balance of sub-client ${client.login} does not cover the transfer`,
      );

    if (key === undefined) {
      const moved = await moveMoney(parent, client, micros, req.direction);
      if (!moved) throw uncovered();
      const [debit, credit] = moved;
      const [parentRow, clientRow] = toClient ? [debit, credit] : [credit, debit];
      return {
        client,
        direction: req.direction,
        amount: fromMicros(micros),
        balance: fromMicros(parentRow.balanceAfter),
        clientBalance: fromMicros(clientRow.balanceAfter),
        replayed: false,
      };
    }

    const now = clock.now();
    // Pruned on write, before the key is looked up: a key past its retention is free again.
    await storage.pruneClientTransfers(now - CLIENT_TRANSFER_KEY_RETENTION_MS);
    const once = await storage.transferBalanceOnce(
      { accountId: parentId, idempotencyKey: key, clientId, direction: req.direction, amount: micros },
      ...walletRows(parent, client, micros, req.direction),
      now,
    );
    if (!once) throw uncovered();
    const recorded = once.transfer;
    const differs = differences(recorded, clientId, micros, req.direction);
    if (differs.length) {
      throw new SpillwayError('conflict', `Idempotency-Key '${key}' was used for another transfer: nothing was moved`, differs);
    }
    return {
      client,
      direction: recorded.direction,
      amount: fromMicros(recorded.amount),
      balance: fromMicros(recorded.balance),
      clientBalance: fromMicros(recorded.clientBalance),
      replayed: once.replayed,
    };
  };

  return { unassignedRows, transfer };
}
