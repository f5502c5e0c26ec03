import type { Storage } from '../ports/storage.ts';
import type { NewMessage } from '../ports/message-storage.ts';
import type { Account } from '../types/account.ts';
import type { StepSpec } from '../types/message.ts';

/** Gives the storage of the running test (created in the suite's `beforeEach`). */
export type StorageRef = () => Storage;

/** A time far after every time used by the suite: claims at it see every message with work. */
export const FAR = 10_000_000_000_000;

let logins = 0;
let numbers = 0;

/** Creates an account with `balance` micro-units in its wallet (one topup). */
export async function createFundedAccount(storage: Storage, balance = 0): Promise<Account> {
  logins += 1;
  const account = await storage.createAccount(
    { login: `user${logins}`, name: `User ${logins}`, passwordHash: 'hash', currency: 'EUR' },
    1_000,
  );
  if (balance !== 0) {
    await storage.addWalletTransaction(
      { accountId: account.id, kind: 'topup', amount: balance, messageId: null, description: 'opening' },
      1_000,
    );
  }
  return account;
}

export function step(to: string, overrides: Partial<StepSpec> = {}): StepSpec {
  return {
    channel: 'sms',
    type: 'sms',
    from: 'Spillway',
    to,
    text: `hello ${to}`,
    ttl: null,
    partsCount: 1,
    cost: 50_000,
    rate: 50_000,
    ...overrides,
  };
}

/** A new message waiting for its DUE event at its due time and no history; override any field. */
export function newMessage(overrides: Partial<NewMessage> = {}): NewMessage {
  numbers += 1;
  const to = `999${String(numbers).padStart(9, '0')}`;
  return {
    kind: 'message',
    guid: null,
    trackinId: null,
    customerMessageId: null,
    content: JSON.stringify({ to, text: 'hello' }),
    steps: [step(to)],
    status: 'scheduled',
    snapshot: { value: 'scheduled', context: { step: 0, attempt: 0 } },
    routeRef: null,
    dueAt: 5_000,
    expiresAt: null,
    charge: 50_000,
    meta: null,
    work: [{ kind: 'event', event: { type: 'DUE' }, dueAt: 5_000 }],
    history: [],
    ...overrides,
  };
}

/** Ingests and fails the test unless the batch was accepted. */
export async function ingestAccepted(storage: Storage, accountId: number, messages: NewMessage[], at = 2_000) {
  const result = await storage.ingest({ accountId, at, messages, chargeDescription: 'SMS' });
  if (result.status !== 'accepted') throw new Error(`ingest answered ${JSON.stringify(result)}`);
  return result;
}
