import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors.ts';
import type { ClientStorage } from '../ports/client-storage.ts';
import type { NewMessage } from '../ports/message-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { StepSpec } from '../types/message.ts';
import { describeBotRevocations } from './bot-revocation-contract.ts';
import { describeClientProvisions } from './client-provision-contract.ts';
import { describeClientRemovals } from './client-removal-contract.ts';
import { describeClientTransfers } from './client-transfer-contract.ts';
import { describeLinkedClients } from './linked-client-contract.ts';

/** Options of {@link runClientStorageContract}. */
export interface ClientStorageContractOptions {
  /** A fresh, migrated, empty storage for each test. */
  create: () => Promise<Storage & ClientStorage> | (Storage & ClientStorage);
  /** Called after each test with the storage `create` answered. */
  dispose?: (storage: Storage & ClientStorage) => Promise<void> | void;
  /**
   * A second storage on the database of `storage`, as another process opens it (closed by the
   * suite with its `close()`); without it the tests of concurrent requests use `storage` alone.
   */
  share?: (storage: Storage & ClientStorage) => Promise<Storage & ClientStorage>;
}

const T0 = Date.UTC(2026, 0, 1);

const step = (from: string, overrides: Partial<StepSpec> = {}): StepSpec => ({
  channel: 'sms',
  type: 'sms',
  from,
  to: '79990000001',
  text: 'hi',
  ttl: null,
  partsCount: 2,
  cost: 100_000,
  rate: 50_000,
  ...overrides,
});

const message = (steps: StepSpec[], history: NewMessage['history'], charge = 0): NewMessage => ({
  kind: 'message',
  guid: null,
  trackinId: null,
  customerMessageId: null,
  content: '{}',
  steps,
  status: 'processing',
  snapshot: { value: 'processing', context: { step: 0, attempt: 0 } },
  routeRef: null,
  dueAt: T0,
  expiresAt: null,
  charge,
  meta: null,
  work: [],
  history,
});

/**
 * The conformance suite of the client-management part of the storage port (sender applications,
 * client links, clients created whole (under a key too), organizations, keyed transfers, statistics reads); every
 * adapter's test file calls it.
 * @example runClientStorageContract({ create: async () => { const s = createSqliteStorage(); await s.migrate(); return s; } })
 */
export function runClientStorageContract(options: ClientStorageContractOptions): void {
  const withStore = (fn: (s: Storage & ClientStorage) => Promise<void>) => async () => {
    const store = await options.create();
    try {
      await fn(store);
    } finally {
      await options.dispose?.(store);
    }
  };
  const accounts = async (s: Storage, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++)
      out.push((await s.createAccount({ login: `client${i}`, name: `C${i}`, passwordHash: 'h', currency: 'EUR' }, T0)).id);
    return out;
  };

  describe('client storage contract', () => {
    it(
      'keeps one pending application per sender, decides it once, and lists by account and status',
      withStore(async (s) => {
        const [a, b] = await accounts(s, 2);
        const input = {
          accountId: a!,
          kind: 'alpha_name' as const,
          name: 'Shop',
          channels: ['sms' as const],
          details: { companyName: 'Shop Ltd' },
        };
        const app = await s.createSenderApplication(input, T0 + 1);
        expect(app).toEqual({ ...input, id: app.id, status: 'pending', reason: null, createdAt: T0 + 1, decidedAt: null });
        await expect(s.createSenderApplication(input, T0 + 2)).rejects.toMatchObject({ code: 'conflict' });
        await expect(s.createSenderApplication(input, T0 + 2)).rejects.toBeInstanceOf(SpillwayError);
        // Another account, or a bot of the same name, is another sender.
        const other = await s.createSenderApplication({ ...input, accountId: b! }, T0 + 3);
        const bot = await s.createSenderApplication({ ...input, kind: 'messenger_bot', channels: ['messenger'] }, T0 + 4);

        const rejected = await s.decideSenderApplication(app.id, { status: 'rejected', reason: 'no trademark' }, T0 + 5);
        expect(rejected).toMatchObject({ id: app.id, status: 'rejected', reason: 'no trademark', decidedAt: T0 + 5 });
        expect(await s.decideSenderApplication(app.id, { status: 'approved', reason: null }, T0 + 6)).toBeNull();
        expect(await s.decideSenderApplication(999_999, { status: 'approved', reason: null }, T0 + 6)).toBeNull();
        expect(await s.getSenderApplication(app.id)).toEqual(rejected);

        // Decided, the name may be applied for again (approved, for more channels: the service
        // refuses one that adds nothing); while one is pending, it may not.
        const again = await s.createSenderApplication(input, T0 + 7);
        await s.decideSenderApplication(again.id, { status: 'approved', reason: null }, T0 + 8);
        const more = await s.createSenderApplication({ ...input, channels: ['chatapp'] }, T0 + 9);
        await expect(s.createSenderApplication(input, T0 + 10)).rejects.toMatchObject({ code: 'conflict' });

        expect((await s.listSenderApplications(a!)).map((x) => x.id)).toEqual([more.id, again.id, bot.id, app.id]);
        expect((await s.listSenderApplications(a!, { kind: 'alpha_name' })).map((x) => x.id)).toEqual([more.id, again.id, app.id]);
        expect((await s.listSenderApplications(null, { status: 'pending' })).map((x) => x.id)).toEqual([more.id, bot.id, other.id]);
        expect(await s.listSenderApplications(b!, { status: 'approved' })).toEqual([]);
        expect(await s.getSenderApplication(999_999)).toBeNull();
      }),
    );

    it(
      'links a client to one parent, finds it by referral id, and lists a parent’s clients',
      withStore(async (s) => {
        const [parent, sub, referred, stranger] = await accounts(s, 4);
        const link = { childId: sub!, parentId: parent!, kind: 'sub' as const, referralId: null, createdAt: T0 };
        expect(await s.linkClient(link)).toEqual(link);
        await expect(s.linkClient({ ...link, parentId: stranger! })).rejects.toMatchObject({ code: 'conflict' });
        const ref = {
          childId: referred!,
          parentId: parent!,
          kind: 'referral' as const,
          referralId: 'a7f3c1de-0000-4000-8000-000000000001',
          createdAt: T0 + 1,
        };
        await s.linkClient(ref);
        await expect(s.linkClient({ ...ref, childId: stranger! })).rejects.toMatchObject({ code: 'conflict' });

        expect(await s.getClientLink(sub!)).toEqual(link);
        expect(await s.getClientLink(parent!)).toBeNull();
        expect(await s.getClientLinkByReferral(parent!, ref.referralId)).toEqual(ref);
        expect(await s.getClientLinkByReferral(stranger!, ref.referralId)).toBeNull();
        expect(await s.listClientLinks(parent!)).toEqual([link, ref]);
        expect(await s.listClientLinks(parent!, 'referral')).toEqual([ref]);
        expect(await s.listClientLinks(sub!)).toEqual([]);
      }),
    );

    it(
      'stores organizations per account, unique by tax id, in pages',
      withStore(async (s) => {
        const [a, b] = await accounts(s, 2);
        const org = (n: number, accountId = a!) => ({
          accountId,
          name: `Org ${n}`,
          taxId: `77000000${n}`,
          address: null,
          email: null,
          phone: null,
        });
        const first = await s.createOrganization({ ...org(1), address: 'Main st 1', email: 'a@example.com', phone: '79990000001' }, T0);
        expect(first).toEqual({
          ...org(1),
          id: first.id,
          address: 'Main st 1',
          email: 'a@example.com',
          phone: '79990000001',
          createdAt: T0,
        });
        await expect(s.createOrganization(org(1), T0)).rejects.toMatchObject({ code: 'conflict' });
        await s.createOrganization(org(1, b!), T0);
        for (let n = 2; n <= 5; n++) await s.createOrganization(org(n), T0 + n);

        const page2 = await s.listOrganizations(a!, { page: 2, pageSize: 2 });
        expect(page2.total).toBe(5);
        expect(page2.items.map((o) => o.name)).toEqual(['Org 3', 'Org 4']);
        expect((await s.listOrganizations(a!, { page: 3, pageSize: 2 })).items.map((o) => o.name)).toEqual(['Org 5']);
        expect(await s.listOrganizations(b!, { page: 1, pageSize: 10 })).toMatchObject({ total: 1, items: [{ accountId: b }] });
      }),
    );

    it(
      'reads the attempts of an account’s messages in a time range, with their statuses in order',
      withStore(async (s) => {
        const [a, b] = await accounts(s, 2);
        await s.addWalletTransaction({ accountId: a!, kind: 'topup', amount: 10_000_000, messageId: null, description: 'top' }, T0);
        await s.addWalletTransaction({ accountId: b!, kind: 'topup', amount: 10_000_000, messageId: null, description: 'top' }, T0);
        const sent = message(
          [
            step('Shop'),
            step('ShopBot', { channel: 'chatapp', type: 'chatapp_trans', partsCount: 1, cost: 30_000 }),
            step('Shop', { channel: 'messenger', type: 'messenger', partsCount: 1, cost: 10_000, messageData: { botName: 'shop_bot' } }),
          ],
          [
            { step: 0, channel: 'sms', status: 'Sent', at: T0 + 10, error: null },
            { step: 0, channel: 'sms', status: 'Failed', at: T0 + 20, error: 'x' },
            { step: 1, channel: 'chatapp', status: 'Sent', at: T0 + 30, error: null },
          ],
          130_000,
        );
        const accepted = await s.ingest({
          accountId: a!,
          at: T0 + 100,
          chargeDescription: 'SMS',
          messages: [sent, message([step('Promo')], [], 100_000)],
        });
        expect(accepted.status).toBe('accepted');
        await s.ingest({ accountId: a!, at: T0 + 5_000, chargeDescription: 'SMS', messages: [message([step('Shop')], [], 100_000)] });
        await s.ingest({ accountId: b!, at: T0 + 100, chargeDescription: 'SMS', messages: [message([step('Shop')], [], 100_000)] });

        const activity = await s.listStepActivity(a!, { from: T0, to: T0 + 5_000 });
        expect(activity).toHaveLength(4);
        expect(activity[0]).toMatchObject({
          step: 0,
          channel: 'sms',
          type: 'sms',
          from: 'Shop',
          partsCount: 2,
          cost: 100_000,
          createdAt: T0 + 100,
          statuses: ['Sent', 'Failed'],
        });
        expect(activity[1]).toMatchObject({ step: 1, channel: 'chatapp', from: 'ShopBot', statuses: ['Sent'], botName: null });
        // A bot step names its bot (for the bot costs), whatever the alpha-name.
        expect(activity[2]).toMatchObject({ step: 2, channel: 'messenger', from: 'Shop', botName: 'shop_bot' });
        expect(activity[3]).toMatchObject({ step: 0, from: 'Promo', statuses: [] });
        expect(await s.listStepActivity(a!, { from: T0 + 5_001, to: T0 + 9_000 })).toEqual([]);

        // Wallet of one alpha-name: the charges of messages with an attempt from it, this account only.
        const shop = await s.listWalletTransactionsOfAlphaName(a!, 'Shop', { page: 1, pageSize: 10 });
        expect(shop.total).toBe(2);
        expect(shop.items.map((t) => t.amount)).toEqual([-100_000, -130_000]);
        expect(shop.items.every((t) => t.accountId === a)).toBe(true);
        expect((await s.listWalletTransactionsOfAlphaName(a!, 'ShopBot', { page: 1, pageSize: 10 })).total).toBe(1);
        expect((await s.listWalletTransactionsOfAlphaName(a!, 'Shop', { page: 2, pageSize: 1 })).items.map((t) => t.amount)).toEqual([
          -130_000,
        ]);
        expect((await s.listWalletTransactionsOfAlphaName(a!, 'Shop', { kinds: ['topup'], page: 1, pageSize: 10 })).total).toBe(0);
        expect((await s.listWalletTransactionsOfAlphaName(a!, 'Nobody', { page: 1, pageSize: 10 })).total).toBe(0);
      }),
    );

    it(
      'binds one chat per bot and phone number, rebinding in place, per account',
      withStore(async (s) => {
        const [a, b] = await accounts(s, 2);
        const bound = await s.upsertBotReceiver({ accountId: a!, botName: 'shop_bot', phoneNumber: '79991234567', chatId: '1001' }, T0);
        expect(bound).toEqual({ accountId: a, botName: 'shop_bot', phoneNumber: '79991234567', chatId: '1001', updatedAt: T0 });
        await s.upsertBotReceiver({ accountId: a!, botName: 'shop_bot', phoneNumber: '79991234567', chatId: '2002' }, T0 + 1);
        expect(await s.getBotReceiver(a!, 'shop_bot', '79991234567')).toMatchObject({ chatId: '2002', updatedAt: T0 + 1 });
        expect(await s.getBotReceiver(a!, 'other_bot', '79991234567')).toBeNull();
        expect(await s.getBotReceiver(b!, 'shop_bot', '79991234567')).toBeNull();
      }),
    );

    it(
      'stores data per phone number in bulk, replacing earlier data, per account',
      withStore(async (s) => {
        const [a, b] = await accounts(s, 2);
        await s.putPhoneData(
          a!,
          [
            { phoneNumber: '79990000001', data: { bonus: 100, level: 'gold' } },
            { phoneNumber: '79990000002', data: { bonus: 5 } },
            { phoneNumber: '79990000001', data: { bonus: 150 } },
          ],
          T0,
        );
        expect(await s.getPhoneData(a!, '79990000001')).toEqual({
          accountId: a,
          phoneNumber: '79990000001',
          data: { bonus: 150 },
          updatedAt: T0,
        });
        await s.putPhoneData(a!, [{ phoneNumber: '79990000002', data: { bonus: 6, nested: { x: [1, 'two'] } } }], T0 + 1);
        expect(await s.getPhoneData(a!, '79990000002')).toMatchObject({ data: { bonus: 6, nested: { x: [1, 'two'] } }, updatedAt: T0 + 1 });
        await s.putPhoneData(a!, [], T0 + 2);
        expect(await s.getPhoneData(b!, '79990000001')).toBeNull();
      }),
    );

    it(
      'merges data per phone number: given members replace, null removes, the rest stay; too large writes nothing',
      withStore(async (s) => {
        const [a, b] = await accounts(s, 2);
        expect(
          await s.mergePhoneData(a!, [{ phoneNumber: '79990000001', data: { bonus: 100, level: 'gold', name: 'Ann' } }], T0, 1000),
        ).toEqual([]);
        expect(
          await s.mergePhoneData(
            a!,
            [
              { phoneNumber: '79990000001', data: { bonus: 150, level: null } },
              { phoneNumber: '79990000002', data: { bonus: 5, gone: null } },
              { phoneNumber: '79990000001', data: { tier: { x: [1] } } },
            ],
            T0 + 1,
            1000,
          ),
        ).toEqual([]);
        expect(await s.getPhoneData(a!, '79990000001')).toEqual({
          accountId: a,
          phoneNumber: '79990000001',
          data: { bonus: 150, name: 'Ann', tier: { x: [1] } },
          updatedAt: T0 + 1,
        });
        expect(await s.getPhoneData(a!, '79990000002')).toMatchObject({ data: { bonus: 5 } });
        expect(await s.getPhoneData(b!, '79990000001')).toBeNull();
        // A member named __proto__ is a member like any other.
        await s.mergePhoneData(b!, [{ phoneNumber: '79990000001', data: JSON.parse('{"__proto__": {"x": 1}, "y": 2}') }], T0, 1000);
        const odd = (await s.getPhoneData(b!, '79990000001'))!.data;
        expect([Object.hasOwn(odd, '__proto__'), Object.getPrototypeOf(odd) === Object.prototype, odd['y']]).toEqual([true, true, 2]);
        // The merged record, not the entry, is measured: nothing of the request is written.
        const big = 'x'.repeat(600);
        expect(
          await s.mergePhoneData(
            a!,
            [
              { phoneNumber: '79990000003', data: { ok: 1 } },
              { phoneNumber: '79990000001', data: { note: big } },
              { phoneNumber: '79990000001', data: { more: big } },
            ],
            T0 + 2,
            1000,
          ),
        ).toEqual([2]);
        expect(await s.getPhoneData(a!, '79990000003')).toBeNull();
        expect((await s.getPhoneData(a!, '79990000001'))?.updatedAt).toBe(T0 + 1);
        expect(await s.mergePhoneData(a!, [], T0 + 3, 1000)).toEqual([]);
        // Merges of one number at once all count: no member is lost.
        await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            s.mergePhoneData(a!, [{ phoneNumber: '79990000004', data: { [`m${i}`]: i } }], T0 + 4, 1000),
          ),
        );
        expect(Object.keys((await s.getPhoneData(a!, '79990000004'))?.data ?? {}).sort()).toEqual(
          Array.from({ length: 10 }, (_, i) => `m${i}`).sort(),
        );
      }),
    );

    it(
      'records an e-mail as pending, then its outcome, readable by its account only',
      withStore(async (s) => {
        const [a, b] = await accounts(s, 2);
        const created = await s.createEmail(
          { accountId: a!, from: 'shop@example.com', to: ['x@example.com', 'y@example.com'], subject: 'Hi' },
          T0,
        );
        expect(created).toMatchObject({
          status: 'pending',
          to: ['x@example.com', 'y@example.com'],
          messageId: null,
          error: null,
          createdAt: T0,
          sentAt: null,
        });
        const sent = await s.completeEmail(created.id, { status: 'sent', messageId: '<m1@example.com>', error: null }, T0 + 5);
        expect(sent).toMatchObject({ status: 'sent', messageId: '<m1@example.com>', sentAt: T0 + 5 });
        const failed = await s.createEmail({ accountId: a!, from: 'shop@example.com', to: ['z@example.com'], subject: 'Hi' }, T0);
        expect(await s.completeEmail(failed.id, { status: 'failed', messageId: null, error: '550 no such user' }, T0 + 6)).toMatchObject({
          status: 'failed',
          error: '550 no such user',
          sentAt: null,
        });
        expect(await s.getEmail(a!, created.id)).toEqual(sent);
        expect(await s.getEmail(b!, created.id)).toBeNull();
        await expect(s.completeEmail(999_999, { status: 'sent', messageId: null, error: null }, T0)).rejects.toMatchObject({
          code: 'not_found',
        });
      }),
    );

    it(
      'keeps OAuth states for one use until they expire',
      withStore(async (s) => {
        const [a] = await accounts(s, 1);
        const st = { state: 'st-1', accountId: a!, alphaName: 'Shop', externalId: 'pn-1', expiresAt: T0 + 600_000 };
        await s.createOAuthState(st);
        await s.createOAuthState({ ...st, state: 'st-2', expiresAt: T0 + 10 });
        expect(await s.takeOAuthState('st-1', T0)).toEqual(st);
        expect(await s.takeOAuthState('st-1', T0)).toBeNull();
        expect(await s.takeOAuthState('st-2', T0 + 10)).toBeNull();
        expect(await s.takeOAuthState('nope', T0)).toBeNull();
      }),
    );

    it(
      'keeps one social connection per alpha-name and per external id, found by either',
      withStore(async (s) => {
        const [a, b] = await accounts(s, 2);
        const c = { accountId: a!, alphaName: 'Shop', externalId: 'pn-1', tokenCiphertext: 'v1.x.y', expiresAt: T0 + 1000, updatedAt: T0 };
        expect(await s.upsertSocialConnection(c)).toEqual(c);
        const replaced = { ...c, externalId: 'pn-2', tokenCiphertext: 'v1.z.w', expiresAt: null, updatedAt: T0 + 1 };
        expect(await s.upsertSocialConnection(replaced)).toEqual(replaced);
        expect(await s.findSocialConnection('pn-1')).toBeNull();
        expect(await s.findSocialConnection('pn-2')).toEqual(replaced);
        // Another account connecting the same external id takes it over.
        const other = { ...c, accountId: b!, externalId: 'pn-2', updatedAt: T0 + 2 };
        await s.upsertSocialConnection(other);
        expect(await s.getSocialConnection(a!, 'Shop')).toBeNull();
        expect(await s.findSocialConnection('pn-2')).toEqual(other);
        await s.upsertSocialConnection({ ...c, alphaName: 'Promo', externalId: 'pn-3' });
        expect((await s.listSocialConnections(a!)).map((x) => x.alphaName)).toEqual(['Promo']);
        expect(await s.deleteSocialConnection(a!, 'Promo')).toBe(true);
        expect(await s.deleteSocialConnection(a!, 'Promo')).toBe(false);
        expect(await s.listSocialConnections(a!)).toEqual([]);
      }),
    );

    describeClientRemovals(withStore, accounts);
    describeBotRevocations(withStore, accounts);
    describeClientTransfers(withStore, accounts, options.share);
    describeLinkedClients(withStore, accounts, options.share);
    describeClientProvisions(withStore, accounts, options.share);
  });
}
