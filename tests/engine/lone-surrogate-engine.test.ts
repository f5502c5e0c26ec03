import { afterEach, describe, expect, it } from 'vitest';
import type { CascadeSendInput, SendMessagesInput } from '@spillway/core';
import { engineFixture } from '../support/engine-fixture.ts';
import { bots } from '../support/cascade-helpers.ts';

// A lone UTF-16 surrogate cannot be written as UTF-8: PostgreSQL's driver stores U+FFFD for it,
// SQLite kept the three bytes of its WTF-8 form (read back as three U+FFFD), and the JSON of a
// jsonb column holds it as an escape PostgreSQL refuses. HTTP bodies are made well-formed at the
// door; strings handed to the engine's own API are made so at its entry points, so that what is
// stored, replayed and sent is the same on both storages. SQLite, and PostgreSQL with
// SPILLWAY_TEST_STORAGE=postgres.

type Fixture = Awaited<ReturnType<typeof engineFixture>>;
let f: Fixture;
afterEach(() => f?.close());

const LONE_HIGH = '\ud800';
const LONE_LOW = '\udc00';
const PAIR = '\u{1F600}';

describe('a lone surrogate given to the engine API', () => {
  it('is stored, replayed and sent as U+FFFD by messages.send, and the caller’s body is left as it was', async () => {
    f = await engineFixture({ balance: 100 });
    const body: SendMessagesInput = {
      messages: [
        { type: 'sms', from: 'Shop', to: '99900000000', text: `high ${LONE_HIGH} pair ${PAIR}`, customerMessageId: `order-${LONE_LOW}` },
        // Not the common SMS shape: a fallback, parsed by the schema.
        {
          type: 'chatapp_service',
          from: 'Shop',
          to: '99900000001',
          text: `chat ${LONE_LOW}`,
          fallbacks: [{ type: 'sms', from: 'Shop', to: '99900000001', text: `fallback ${LONE_HIGH}` }],
        },
      ],
    };
    const sent = await f.engine.messages.send(f.account.id, body);
    const [sms, chat] = sent.messages;
    expect(sms).toMatchObject({ text: `high \uFFFD pair ${PAIR}`, customerMessageId: 'order-\uFFFD' });
    const stored = await f.storage.getMessage(sms!.messageId);
    expect(stored?.steps[0]?.text).toBe(`high \uFFFD pair ${PAIR}`);
    expect(stored?.customerMessageId).toBe('order-\uFFFD');
    expect((await f.storage.getMessage(chat!.messageId))?.steps.map((s) => s.text)).toEqual(['chat \uFFFD', 'fallback \uFFFD']);
    // The caller's objects are not written to.
    expect(body.messages[0]!.text).toBe(`high ${LONE_HIGH} pair ${PAIR}`);
    expect(body.messages[1]!.fallbacks![0]!.text).toBe(`fallback ${LONE_HIGH}`);

    // The same request again is a replay of the stored one.
    const again = await f.engine.messages.send(f.account.id, { messages: [body.messages[0]!] });
    expect(again.messages[0]!.messageId).toBe(sms!.messageId);

    await f.advance(200);
    expect(f.simulator.sent.map((s) => s.text)).toContain(`high \uFFFD pair ${PAIR}`);
  });

  it('is changed to U+FFFD in a scheduled message’s change (messages.update)', async () => {
    f = await engineFixture({ balance: 100 });
    const scheduledAt = new Date(f.clock.now() + 3_600_000).toISOString();
    const sent = await f.engine.messages.send(f.account.id, {
      messages: [{ type: 'sms', from: 'Shop', to: '99900000000', text: 'later', scheduledAt }],
    });
    const id = sent.messages[0]!.messageId;
    const patch = { text: `soon ${LONE_HIGH}` };
    await f.engine.messages.update(f.account.id, id, patch);
    expect(patch.text).toBe(`soon ${LONE_HIGH}`);
    expect((await f.storage.getMessage(id))?.steps[0]?.text).toBe('soon \uFFFD');
  });

  it('is sent as U+FFFD by cascades.send and cascades.broadcast, and a trackinId holding one is found by its stored form', async () => {
    f = await engineFixture({ balance: 100 });
    const cascade = [{ fromName: 'Shop', toPhone: '99900000000', text: `cascade ${LONE_HIGH}`, id: `t-${LONE_LOW}` }];
    const [accepted] = await f.engine.cascades.send(f.account.id, cascade as CascadeSendInput, bots);
    expect(accepted).toMatchObject({ trackinId: 't-\uFFFD' });
    expect(cascade[0]!.text).toBe(`cascade ${LONE_HIGH}`);
    const broadcast = await f.engine.cascades.broadcast(f.account.id, {
      fromName: 'Shop',
      text: `broadcast ${LONE_LOW}`,
      recipients: ['99900000000'],
    });
    expect(broadcast.count).toBe(1);
    for (let i = 0; i < 5; i++) await f.advance(200);
    const texts = f.simulator.sent.map((s) => s.text);
    expect(texts).toContain('cascade \uFFFD');
    expect(texts).toContain('broadcast \uFFFD');
    expect(texts.join('')).not.toMatch(/\p{Surrogate}/u);
    expect(await f.engine.cascades.statusByTrackinId(f.account.id, 't-\uFFFD')).toMatchObject({ messageId: accepted!.messageId });
  });
});
