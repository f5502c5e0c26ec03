import { describe, expect, it } from 'vitest';
import type { ClientStorage } from '../ports/client-storage.ts';
import type { Storage } from '../ports/storage.ts';
import type { SenderKind } from '../types/client.ts';

type Store = Storage & ClientStorage;

const T0 = Date.UTC(2026, 0, 1);

/**
 * The revocation of approved bots of the client storage contract (`revokeBotApplications`).
 * Declared by {@link runClientStorageContract} with its fresh-storage wrapper.
 */
export function describeBotRevocations(
  withStore: (fn: (s: Store) => Promise<void>) => () => Promise<void>,
  accounts: (s: Store, n: number) => Promise<number[]>,
): void {
  describe('bot revocations', () => {
    const details = { companyName: 'Shop Ltd', description: 'Support' };
    const channelOf = (kind: SenderKind) => (kind === 'chatapp_bot' ? 'chatapp_bot' : kind === 'messenger_bot' ? 'messenger' : 'sms');

    it(
      'revokes the approved applications of one bot of one account, of one kind or of both, and nothing else',
      withStore(async (s) => {
        const [a, b] = await accounts(s, 2);
        const apply = (accountId: number, kind: SenderKind, name: string) =>
          s.createSenderApplication({ accountId, kind, name, channels: [channelOf(kind)], details }, T0);
        const approved = async (accountId: number, kind: SenderKind, name: string, at: number) =>
          (await s.decideSenderApplication((await apply(accountId, kind, name)).id, { status: 'approved', reason: null }, at))!;

        const messenger = await approved(a!, 'messenger_bot', 'shop_bot', T0 + 1);
        const chatapp = await approved(a!, 'chatapp_bot', 'shop_bot', T0 + 2);
        const alphaName = await approved(a!, 'alpha_name', 'shop_bot', T0 + 3);
        const otherBot = await approved(a!, 'messenger_bot', 'desk_bot', T0 + 4);
        const otherAccount = await approved(b!, 'messenger_bot', 'shop_bot', T0 + 5);
        const rejected = await apply(a!, 'messenger_bot', 'old_bot');
        await s.decideSenderApplication(rejected.id, { status: 'rejected', reason: 'no' }, T0 + 6);

        // One kind: the other kind's application of the name stays approved.
        const one = await s.revokeBotApplications(a!, 'shop_bot', 'Chat-app account closed', T0 + 10, 'chatapp_bot');
        expect(one).toEqual([{ ...chatapp, status: 'revoked', reason: 'Chat-app account closed', decidedAt: T0 + 10 }]);
        expect(await s.getSenderApplication(chatapp.id)).toEqual(one[0]);
        expect(await s.getSenderApplication(messenger.id)).toEqual(messenger);
        expect(await s.revokeBotApplications(a!, 'shop_bot', 'again', T0 + 11, 'chatapp_bot')).toEqual([]);

        // Both kinds: what is left of the name (the messenger bot).
        const rest = await s.revokeBotApplications(a!, 'shop_bot', 'Bot token leaked', T0 + 12);
        expect(rest).toEqual([{ ...messenger, status: 'revoked', reason: 'Bot token leaked', decidedAt: T0 + 12 }]);
        expect((await s.listSenderApplications(a!, { kind: 'messenger_bot', status: 'approved' })).map((x) => x.id)).toEqual([otherBot.id]);
        // An alpha-name of the name, another bot, another account's bot and a rejected one are untouched.
        expect(await s.getSenderApplication(alphaName.id)).toEqual(alphaName);
        expect(await s.getSenderApplication(otherBot.id)).toEqual(otherBot);
        expect(await s.getSenderApplication(otherAccount.id)).toEqual(otherAccount);
        expect(await s.revokeBotApplications(a!, 'old_bot', 'x', T0 + 13)).toEqual([]);
        expect(await s.getSenderApplication(rejected.id)).toMatchObject({ status: 'rejected', reason: 'no', decidedAt: T0 + 6 });
        expect(await s.revokeBotApplications(999_999, 'shop_bot', 'x', T0 + 13)).toEqual([]);

        // A new application of the revoked bot is taken (only a pending one blocks another).
        const again = await apply(a!, 'messenger_bot', 'shop_bot');
        expect(again).toMatchObject({ status: 'pending', name: 'shop_bot' });
      }),
    );

    it(
      'leaves a pending application of the bot pending, and answers every approved one by id',
      withStore(async (s) => {
        const [a] = await accounts(s, 1);
        const apply = () =>
          s.createSenderApplication({ accountId: a!, kind: 'messenger_bot', name: 'shop_bot', channels: ['messenger'], details }, T0);
        // Two approved applications of one bot (the service refuses a second one; the storage does not).
        const first = (await s.decideSenderApplication((await apply()).id, { status: 'approved', reason: null }, T0 + 1))!;
        const second = (await s.decideSenderApplication((await apply()).id, { status: 'approved', reason: null }, T0 + 2))!;
        const pending = await apply();

        const revoked = await s.revokeBotApplications(a!, 'shop_bot', 'Owner struck off', T0 + 10, 'messenger_bot');
        expect(revoked.map((x) => x.id)).toEqual([first.id, second.id]);
        expect(revoked.every((x) => x.status === 'revoked' && x.reason === 'Owner struck off' && x.decidedAt === T0 + 10)).toBe(true);
        expect(await s.getSenderApplication(pending.id)).toEqual(pending);
      }),
    );
  });
}
