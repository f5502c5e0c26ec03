import { expect } from 'vitest';
import { SpillwayError } from '@spillway/core';
import { hasClientStorage } from '@spillway/core/storage';
import type { CascadeSendOptions } from '@spillway/core';
import type { engineFixture } from './engine-fixture.ts';
import type { CascadeSendInput } from '@spillway/core';

type Fixture = Awaited<ReturnType<typeof engineFixture>>;

/** Both bot keys, as the cascade endpoints' headers would give them. */
export const bots: CascadeSendOptions = { credentials: { messengerBotToken: 'tg-key', chatappBotToken: 'viber-key' } };

/** A cascade message from the fixture's alpha-name `Shop`. */
export const cascade = (toPhone: string, extra: Record<string, unknown> = {}) => ({ fromName: 'Shop', toPhone, text: 'Hello', ...extra });

/** The rejection of `promise`, which must be a SpillwayError. */
export async function rejection(promise: Promise<unknown>): Promise<SpillwayError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SpillwayError);
  return error as SpillwayError;
}

/** Shortcuts over the fixture of the running test (`f()` gives it). */
export function cascadeHelpers(f: () => Fixture) {
  const statusOf = (guid: string) => f().engine.cascades.statusByGuid(f().account.id, guid);
  return {
    async sendOne(body: unknown, options?: CascadeSendOptions) {
      const [accepted] = await f().engine.cascades.send(f().account.id, body as CascadeSendInput, options);
      return accepted!;
    },
    statusOf,
    trail: async (guid: string) => (await statusOf(guid)).history.map((h) => `${h.status}:${h.channel}`),
    balance: async () => (await f().engine.accounts.balance(f().account.id)).balance,
    /** Approves a messenger bot of the account, as an operator's decision on its `POST /bots/application` does. */
    async approveBot(name: string) {
      const storage = f().storage;
      if (!hasClientStorage(storage)) throw new Error('the test storage keeps no sender applications');
      const now = f().clock.now();
      const app = await storage.createSenderApplication(
        { accountId: f().account.id, kind: 'messenger_bot', name, channels: ['messenger'], details: {} },
        now,
      );
      await storage.decideSenderApplication(app.id, { status: 'approved', reason: null }, now);
    },
    /** Binds the messenger chat of a number, as `PUT /chat_bot/bot_receiver/phone` does: the messenger step needs it. */
    async bindChat(phoneNumber: string, chatId = `chat-${phoneNumber}`, botName = '') {
      const storage = f().storage;
      if (!hasClientStorage(storage)) throw new Error('the test storage keeps no bot bindings');
      await storage.upsertBotReceiver({ accountId: f().account.id, botName, phoneNumber, chatId }, f().clock.now());
    },
  };
}
