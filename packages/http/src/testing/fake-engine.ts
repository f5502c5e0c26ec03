import { SpillwayError, createFakeClock } from '@spillway/core';
import type { Account, AccountService, Engine, FakeClock, MessagingService, SendResponse } from '@spillway/core';

/** A stand-in Engine for HTTP unit tests: one account, credentials checked in clear, calls recorded. */
export interface FakeEngine extends Engine {
  readonly clock: FakeClock;
  calls: { passwordChecks: number; keyChecks: number; sends: Array<{ accountId: number; body: unknown }> };
  account: Account;
}

export const FAKE_LOGIN = 'acme';
export const FAKE_PASSWORD = 's3cret:with:colons';
export const FAKE_KEY = 'sk_test_1234567890';

/** Builds a {@link FakeEngine}; `overrides` replace messaging methods. */
export function createFakeEngine(overrides: Partial<MessagingService> = {}): FakeEngine {
  const clock = createFakeClock();
  const account: Account = { id: 7, login: FAKE_LOGIN, name: 'Acme', currency: 'EUR', rateLimits: {}, createdAt: clock.now() };
  const calls: FakeEngine['calls'] = { passwordChecks: 0, keyChecks: 0, sends: [] };
  const unimplemented = (name: string) => () => Promise.reject(new Error(`fake engine: ${name} not implemented`));

  const accounts = {
    async authenticatePassword(login: string, password: string) {
      calls.passwordChecks++;
      return login === FAKE_LOGIN && password === FAKE_PASSWORD ? account : null;
    },
    async authenticateKey(key: string) {
      calls.keyChecks++;
      return key === FAKE_KEY ? account : null;
    },
    async balance() {
      return { balance: 12.5, currency: 'EUR' };
    },
    async walletHistory(_id: number, query: { kinds?: string[]; page?: number; pageSize?: number }) {
      const items = [
        {
          id: 2,
          accountId: 7,
          kind: 'charge' as const,
          amount: -35_000,
          balanceAfter: 12_500_000,
          messageId: 11,
          description: 'sms',
          counterpartAccountId: null,
          createdAt: Date.UTC(2026, 0, 2),
        },
        {
          id: 1,
          accountId: 7,
          kind: 'topup' as const,
          amount: 12_535_000,
          balanceAfter: 12_535_000,
          messageId: null,
          description: 'top-up',
          counterpartAccountId: null,
          createdAt: Date.UTC(2026, 0, 1),
        },
      ].filter((t) => !query.kinds || query.kinds.includes(t.kind));
      return { items, total: items.length };
    },
    async setAlphaNameCallback(accountId: number, name: string, url: string | null) {
      if (name !== 'ACME') throw new SpillwayError('not_found', `No alpha-name ${name}`);
      return { accountId, name, channels: ['sms' as const], callbackUrl: url };
    },
  } as Partial<AccountService> as AccountService;

  const messages: MessagingService = {
    async send(accountId, body) {
      calls.sends.push({ accountId, body });
      const response: SendResponse = { messagelistId: 1, messages: [] };
      return response;
    },
    status: async (_accountId, messageId) => {
      throw new SpillwayError('not_found', `Message ${messageId} not found`);
    },
    update: unimplemented('update'),
    ...overrides,
  };

  return {
    clock,
    storage: {} as Engine['storage'],
    accounts,
    messages,
    // The cascade API is exercised on a real engine (tests/http/cascade-http.test.ts).
    cascades: {} as Engine['cascades'],
    reachability: { enabled: false, ttlSeconds: 0, show: unimplemented('reachability.show'), clear: unimplemented('reachability.clear') },
    start() {},
    stop: async () => ({ sendsInFlight: 0, unapplied: 0, roundRunning: false }),
    receive: async () => {},
    receiveMany: async () => {},
    receiveInbound: async () => {},
    wake: () => {},
    handOver: () => {},
    drain: async () => {},
    calls,
    account,
  };
}
