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

        // One organization is read by its own account only.
        expect(await s.getOrganization(a!, mine.id)).toEqual(mine);
        expect(await s.getOrganization(b!, mine.id)).toBeNull();
        expect(await s.deleteOrganization(b!, mine.id)).toBe(false);
        expect(await s.deleteOrganization(a!, mine.id)).toBe(true);
        expect(await s.getOrganization(a!, mine.id)).toBeNull();
        expect(await s.deleteOrganization(a!, mine.id)).toBe(false);
        expect(await s.deleteOrganization(a!, 999_999)).toBe(false);
        expect(await s.listOrganizations(a!, { page: 1, pageSize: 10 })).toEqual({ items: [kept], total: 1 });
        expect(await s.listOrganizations(b!, { page: 1, pageSize: 10 })).toEqual({ items: [theirs], total: 1 });
        // The tax id is free again.
        expect(await s.createOrganization({ ...org, accountId: a! }, T0 + 1)).toMatchObject({ taxId: org.taxId, createdAt: T0 + 1 });
      }),
    );

    it(
      'never reuses the id of a deleted organization, not even the newest one',
      withStore(async (s) => {
        // SQLite's INTEGER PRIMARY KEY without AUTOINCREMENT gave the next row the highest deleted
        // id: a client holding the stale id then deleted the new organization.
        const [a] = await accounts(s, 1);
        const org = { accountId: a!, name: 'Org', address: null, email: null, phone: null };
        await s.createOrganization({ ...org, taxId: '7700000001' }, T0);
        const newest = await s.createOrganization({ ...org, taxId: '7700000002' }, T0);
        expect(await s.deleteOrganization(a!, newest.id)).toBe(true);
        const next = await s.createOrganization({ ...org, taxId: '7700000003' }, T0);
        expect(next.id).toBeGreaterThan(newest.id);
        expect(await s.deleteOrganization(a!, newest.id)).toBe(false);
        expect((await s.listOrganizations(a!, { page: 1, pageSize: 10 })).total).toBe(2);
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
          { accountId: parent, name: 'Shop', channels: ['sms'], callbackUrl: 'https://example.com/hook', withdrawn: ['sms'], left: [] },
          { accountId: child, name: 'Shop', channels: ['sms'], callbackUrl: null, withdrawn: ['sms'], left: [] },
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

    it(
      'withdraws some channels of an alpha-name: kept on the rest, revoked where none is left, with the applications left without a channel',
      withStore(async (s) => {
        const [parent, child, other] = await accounts(s, 3);
        const hook = 'https://example.com/hook';
        await s.upsertAlphaName({ accountId: parent!, name: 'Shop', channels: ['sms', 'chatapp', 'rcs'] });
        await s.setAlphaNameCallback(parent!, 'Shop', hook);
        await s.upsertAlphaName({ accountId: child!, name: 'Shop', channels: ['chatapp'] });
        await s.upsertAlphaName({ accountId: other!, name: 'Shop', channels: ['rcs'] });
        const details = { companyName: 'Shop Ltd' };
        const approved = async (accountId: number, channels: Array<'sms' | 'chatapp' | 'rcs'>, at: number) => {
          const app = await s.createSenderApplication({ accountId, kind: 'alpha_name', name: 'Shop', channels, details }, T0);
          return (await s.decideSenderApplication(app.id, { status: 'approved', reason: null }, at))!;
        };
        const smsOnly = await approved(parent!, ['sms'], T0 + 1);
        const mixed = await approved(parent!, ['chatapp', 'rcs'], T0 + 2);
        const childs = await approved(child!, ['chatapp'], T0 + 3);
        // An account whose name has none of the channels is left alone, its applications too.
        const others = await approved(other!, ['sms'], T0 + 4);
        const pending = await s.createSenderApplication(
          { accountId: parent!, kind: 'alpha_name', name: 'Shop', channels: ['sms'], details },
          T0,
        );

        // Read in this turn before the withdrawal: a memo of the list must not answer it afterwards.
        expect((await s.listAlphaNames(parent!))[0]?.channels).toEqual(['sms', 'chatapp', 'rcs']);
        const revoked = await s.revokeAlphaNames([parent!, child!, other!, 999_999], 'Shop', 'SMS registration lapsed', T0 + 10, [
          'chatapp',
          'sms',
        ]);
        expect(revoked.alphaNames).toEqual([
          {
            accountId: parent,
            name: 'Shop',
            channels: ['sms', 'chatapp', 'rcs'],
            callbackUrl: hook,
            withdrawn: ['sms', 'chatapp'],
            left: ['rcs'],
          },
          { accountId: child, name: 'Shop', channels: ['chatapp'], callbackUrl: null, withdrawn: ['chatapp'], left: [] },
        ]);
        // The applications none of whose channels is left are revoked; one with a channel left stays approved.
        expect(revoked.applications.map((x) => x.id).sort((x, y) => x - y)).toEqual([smsOnly.id, childs.id]);
        expect(revoked.applications.every((x) => x.status === 'revoked' && x.reason === 'SMS registration lapsed')).toBe(true);
        expect(revoked.applications.every((x) => x.decidedAt === T0 + 10)).toBe(true);
        expect(await s.getSenderApplication(mixed.id)).toEqual(mixed);
        expect(await s.getSenderApplication(others.id)).toEqual(others);
        expect(await s.getSenderApplication(pending.id)).toMatchObject({ status: 'pending' });

        // The name keeps its other channels and its callback URL; the child's had none left and is gone.
        const kept = { accountId: parent, name: 'Shop', channels: ['rcs'], callbackUrl: hook };
        expect(await s.listAlphaNames(parent!)).toEqual([kept]);
        expect(await s.getAlphaName(parent!, 'Shop')).toEqual(kept);
        expect(await s.listAlphaNames(child!)).toEqual([]);
        expect(await s.getAlphaName(child!, 'Shop')).toBeNull();
        expect(await s.getAlphaName(other!, 'Shop')).toMatchObject({ channels: ['rcs'] });
        if (hasAlphaNameDirectory(s)) {
          expect((await s.findAlphaNameOwners('Shop')).map((o) => [o.accountId, o.channels])).toEqual([
            [parent, ['rcs']],
            [other, ['rcs']],
          ]);
        }

        // A channel the name no longer has: nothing happens. The last one: the name is revoked entirely.
        expect(await s.revokeAlphaNames([parent!], 'Shop', 'again', T0 + 11, ['sms'])).toEqual({ alphaNames: [], applications: [] });
        const last = await s.revokeAlphaNames([parent!], 'Shop', 'RCS agent closed', T0 + 12, ['rcs']);
        expect(last.alphaNames).toEqual([{ ...kept, channels: ['rcs'], withdrawn: ['rcs'], left: [] }]);
        expect(last.applications).toEqual([{ ...mixed, status: 'revoked', reason: 'RCS agent closed', decidedAt: T0 + 12 }]);
        expect(await s.listAlphaNames(parent!)).toEqual([]);
        expect(await s.getAlphaName(parent!, 'Shop')).toBeNull();
      }),
    );
  });
}
