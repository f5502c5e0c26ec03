import { describe, expect, it } from 'vitest';
import { hasAlphaNameDirectory } from '../ports/alpha-name-directory.ts';
import type { ClientStorage } from '../ports/client-storage.ts';
import type { Storage } from '../ports/storage.ts';

type Store = Storage & ClientStorage;

const T0 = Date.UTC(2026, 0, 1);

/**
 * The removals of the client storage contract: organizations, bot-receiver bindings and revoked
 * alpha-names. Declared by {@link runClientStorageContract} with its fresh-storage wrapper.
 */
export function describeClientRemovals(
  withStore: (fn: (s: Store) => Promise<void>) => () => Promise<void>,
  accounts: (s: Store, n: number) => Promise<number[]>,
): void {
  describe('removals', () => {
    it(
      'deletes an organization of its own account only, and frees its tax id',
      withStore(async (s) => {
        const [a, b] = await accounts(s, 2);
        const org = { name: 'Org', taxId: '7700000001', address: null, email: null, phone: null };
        const mine = await s.createOrganization({ ...org, accountId: a! }, T0);
        const kept = await s.createOrganization({ ...org, accountId: a!, taxId: '7700000002' }, T0);
        const theirs = await s.createOrganization({ ...org, accountId: b! }, T0);

        expect(await s.deleteOrganization(b!, mine.id)).toBe(false);
        expect(await s.deleteOrganization(a!, mine.id)).toBe(true);
        expect(await s.deleteOrganization(a!, mine.id)).toBe(false);
        expect(await s.deleteOrganization(a!, 999_999)).toBe(false);
        expect(await s.listOrganizations(a!, { page: 1, pageSize: 10 })).toEqual({ items: [kept], total: 1 });
        expect(await s.listOrganizations(b!, { page: 1, pageSize: 10 })).toEqual({ items: [theirs], total: 1 });
        // The tax id is free again.
        expect(await s.createOrganization({ ...org, accountId: a! }, T0 + 1)).toMatchObject({ taxId: org.taxId, createdAt: T0 + 1 });
      }),
    );

    it(
      'unbinds the chat of one bot and number, and with a chat id only while bound to that chat',
      withStore(async (s) => {
        const [a, b] = await accounts(s, 2);
        const bind = (accountId: number, botName: string, chatId: string) =>
          s.upsertBotReceiver({ accountId, botName, phoneNumber: '79991234567', chatId }, T0);
        await bind(a!, '', '1001');
        await bind(a!, 'shop_bot', '2002');
        await bind(b!, '', '3003');

        expect(await s.deleteBotReceiver(a!, '', '79991234567', '9999')).toBe(false);
        expect(await s.getBotReceiver(a!, '', '79991234567')).toMatchObject({ chatId: '1001' });
        expect(await s.deleteBotReceiver(a!, '', '79991234567', '1001')).toBe(true);
        expect(await s.getBotReceiver(a!, '', '79991234567')).toBeNull();
        expect(await s.deleteBotReceiver(a!, '', '79991234567', null)).toBe(false);
        // Another bot of the account and another account keep theirs.
        expect(await s.getBotReceiver(a!, 'shop_bot', '79991234567')).toMatchObject({ chatId: '2002' });
        expect(await s.getBotReceiver(b!, '', '79991234567')).toMatchObject({ chatId: '3003' });
        expect(await s.deleteBotReceiver(a!, 'shop_bot', '79991234567', null)).toBe(true);
        expect(await s.getBotReceiver(a!, 'shop_bot', '79991234567')).toBeNull();
      }),
    );

    it(
      'revokes an alpha-name of the given accounts at once: gone from every read, its approved applications revoked',
      withStore(async (s) => {
        const [parent, child, stranger] = await accounts(s, 3);
        for (const accountId of [parent!, child!, stranger!]) await s.upsertAlphaName({ accountId, name: 'Shop', channels: ['sms'] });
        await s.upsertAlphaName({ accountId: parent!, name: 'Other', channels: ['sms'] });
        await s.setAlphaNameCallback(parent!, 'Shop', 'https://example.com/hook');
        const details = { companyName: 'Shop Ltd' };
        const apply = (accountId: number, channels: Array<'sms' | 'chatapp'>) =>
          s.createSenderApplication({ accountId, kind: 'alpha_name', name: 'Shop', channels, details }, T0);
        const first = await apply(parent!, ['sms']);
        await s.decideSenderApplication(first.id, { status: 'approved', reason: null }, T0 + 1);
        const more = await apply(parent!, ['chatapp']);
        await s.decideSenderApplication(more.id, { status: 'approved', reason: null }, T0 + 2);
        const pending = await apply(parent!, ['chatapp']);
        const bot = await s.createSenderApplication(
          { accountId: parent!, kind: 'messenger_bot', name: 'Shop', channels: ['messenger'], details },
          T0,
        );
        await s.decideSenderApplication(bot.id, { status: 'approved', reason: null }, T0 + 3);
        const strangers = await apply(stranger!, ['sms']);
        await s.decideSenderApplication(strangers.id, { status: 'approved', reason: null }, T0 + 4);

        // Read in this turn before the revocation: a memo of the list must not answer it afterwards.
        expect((await s.listAlphaNames(parent!)).map((n) => n.name)).toEqual(['Other', 'Shop']);
        const revoked = await s.revokeAlphaNames([parent!, child!, 999_999], 'Shop', 'trademark dispute', T0 + 10);
        expect(revoked.alphaNames).toEqual([
          { accountId: parent, name: 'Shop', channels: ['sms'], callbackUrl: 'https://example.com/hook' },
          { accountId: child, name: 'Shop', channels: ['sms'], callbackUrl: null },
        ]);
        expect(revoked.applications.map((x) => x.id).sort((x, y) => x - y)).toEqual([first.id, more.id]);
        expect(revoked.applications.every((x) => x.status === 'revoked' && x.reason === 'trademark dispute')).toBe(true);
        expect(revoked.applications.every((x) => x.decidedAt === T0 + 10)).toBe(true);

        expect((await s.listAlphaNames(parent!)).map((n) => n.name)).toEqual(['Other']);
        expect(await s.listAlphaNames(child!)).toEqual([]);
        expect(await s.getAlphaName(parent!, 'Shop')).toBeNull();
        expect(await s.getSenderApplication(first.id)).toMatchObject({ status: 'revoked', reason: 'trademark dispute' });
        // A pending application, a bot of the same name and another account's name are untouched.
        expect(await s.getSenderApplication(pending.id)).toMatchObject({ status: 'pending' });
        expect(await s.getSenderApplication(bot.id)).toMatchObject({ status: 'approved' });
        expect(await s.getSenderApplication(strangers.id)).toMatchObject({ status: 'approved' });
        expect(await s.getAlphaName(stranger!, 'Shop')).toMatchObject({ channels: ['sms'] });
        expect((await s.listSenderApplications(null, { status: 'revoked' })).map((x) => x.id).sort((x, y) => x - y)).toEqual([
          first.id,
          more.id,
        ]);
        if (hasAlphaNameDirectory(s)) expect((await s.findAlphaNameOwners('Shop')).map((o) => o.accountId)).toEqual([stranger]);

        // Nothing left to revoke: nothing happens. Approved again, the name is the account's again.
        expect(await s.revokeAlphaNames([parent!], 'Shop', 'again', T0 + 11)).toEqual({ alphaNames: [], applications: [] });
        await s.upsertAlphaName({ accountId: parent!, name: 'Shop', channels: ['sms'] });
        expect((await s.listAlphaNames(parent!)).map((n) => n.name)).toEqual(['Other', 'Shop']);
      }),
    );
  });
}
