import { afterEach, describe, expect, it } from 'vitest';
import type { RouteInput } from '@spillway/core';
import { engineFixture } from '../support/engine-fixture.ts';
import { bots, cascade, cascadeHelpers, rejection } from '../support/cascade-helpers.ts';

type Fixture = Awaited<ReturnType<typeof engineFixture>>;
let f: Fixture;
afterEach(() => f?.close());

const { sendOne, statusOf } = cascadeHelpers(() => f);

/** A route of one step on `channel`. */
const oneStep = (name: string, channel: 'sms' | 'rcs' | 'chatapp'): RouteInput => ({
  name,
  start: channel,
  steps: [{ id: channel, channel }],
  edges: [],
});

/** The account's alpha-name `Shop` bound to an SMS route (A), and an RCS route (B) bound to nothing. */
async function boundAandB() {
  f = await engineFixture();
  const a = await f.engine.cascades.createRoute(f.account.id, oneStep('A', 'sms'));
  await f.engine.cascades.bindRoute(f.account.id, a.id, 'Shop');
  const b = await f.engine.cascades.createRoute(f.account.id, oneStep('B', 'rcs'));
  return { a, b };
}

const firstChannel = () => f.simulator.sent[0]?.channel;

describe('cascade message `route`: the route named overrides the binding', () => {
  it('runs route B named by id on an alpha-name bound to route A', async () => {
    const { b } = await boundAandB();
    const { messageId } = await sendOne([cascade('99900000000', { route: b.id })]);
    await f.advance(200);
    expect(firstChannel()).toBe('rcs');
    expect(await statusOf(messageId)).toMatchObject({ route: `${b.id}@1`, status: 'delivered', channel: 'rcs' });
  });

  it('runs the revision named by id@revision, not the latest', async () => {
    const { b } = await boundAandB();
    await f.engine.cascades.updateRoute(f.account.id, b.id, { ...oneStep('B v2', 'chatapp'), revision: 1 });
    const old = await sendOne([cascade('99900000000', { route: `${b.id}@1` })]);
    await f.advance(200);
    expect(firstChannel()).toBe('rcs');
    expect(await statusOf(old.messageId)).toMatchObject({ route: `${b.id}@1`, channel: 'rcs' });
    // Without a revision: the latest.
    const latest = await sendOne([cascade('99900000000', { route: b.id })]);
    await f.advance(200);
    expect(await statusOf(latest.messageId)).toMatchObject({ route: `${b.id}@2`, channel: 'chatapp' });
  });

  it('runs a built-in route named, and keeps the named route on the messenger-first endpoints', async () => {
    const { b } = await boundAandB();
    const builtin = await sendOne([cascade('99900000000', { route: 'messenger-first' })], bots);
    expect((await statusOf(builtin.messageId)).route).toBe('messenger-first@1');
    const withRevision = await sendOne([cascade('99900000000', { route: 'default@1' })], bots);
    expect((await statusOf(withRevision.messageId)).route).toBe('default@1');
    const messengerFirst = await sendOne([cascade('99900000000', { route: b.id })], { ...bots, endpoint: 'messenger-first' });
    expect((await statusOf(messengerFirst.messageId)).route).toBe(`${b.id}@1`);
  });

  it('takes route from the overview shape (top level, or per message) and from a broadcast template', async () => {
    const { a, b } = await boundAandB();
    const overview = await f.engine.cascades.send(f.account.id, {
      fromName: 'Shop',
      route: b.id,
      messages: [
        { recipient: '99900000000', text: 'Hi' },
        { recipient: '99900000000', text: 'Hi', route: a.id },
      ],
    });
    expect((await statusOf(overview[0]!.messageId)).route).toBe(`${b.id}@1`);
    expect((await statusOf(overview[1]!.messageId)).route).toBe(`${a.id}@1`);
    const broadcast = await f.engine.cascades.broadcast(f.account.id, {
      fromName: 'Shop',
      text: 'Sale',
      route: `${b.id}@1`,
      recipients: ['99900000000', '99900000005'],
    });
    for (const m of broadcast.messages) expect((await statusOf(m.messageId)).route).toBe(`${b.id}@1`);
  });

  it('refuses an unknown route or revision at [i].route naming the value, and stores nothing', async () => {
    const { b } = await boundAandB();
    const error = await rejection(
      f.engine.cascades.send(f.account.id, [
        cascade('99900000000', { id: 'ok-1' }),
        cascade('99900000000', { route: 'rt_nope' }),
        cascade('99900000000', { route: `${b.id}@2` }),
        cascade('99900000000', { route: 'default@2' }),
      ]),
    );
    expect(error).toMatchObject({ code: 'validation_failed', status: 400 });
    expect(error.details).toEqual([
      { path: '[1].route', message: expect.stringContaining('"rt_nope"') },
      { path: '[2].route', message: expect.stringContaining(`"${b.id}@2"`) },
      { path: '[3].route', message: expect.stringContaining('"default@2"') },
    ]);
    expect(error.details?.[2]?.message).toContain('revision 1 only');
    expect(await f.storage.getMessageByTrackinId(f.account.id, 'ok-1')).toBeNull();
  });

  it("refuses another account's route exactly as an unknown one", async () => {
    await boundAandB();
    const other = await f.engine.accounts.create({ login: 'other', password: 'correct horse' });
    const theirs = await f.engine.cascades.createRoute(other.id, oneStep('theirs', 'rcs'));
    for (const route of [theirs.id, `${theirs.id}@1`]) {
      const error = await rejection(f.engine.cascades.send(f.account.id, [cascade('99900000000', { route })]));
      expect(error.details).toEqual([
        {
          path: '[0].route',
          message: `unknown route "${route}": ${'no such route of this account, nor a built-in one (default, messenger-first, flashcall)'}`,
        },
      ]);
    }
  });

  it('refuses a deleted route, and a route of the broadcast template at `route`', async () => {
    const { b } = await boundAandB();
    await f.engine.cascades.deleteRoute(f.account.id, b.id);
    const error = await rejection(f.engine.cascades.send(f.account.id, [cascade('99900000000', { route: `${b.id}@1` })]));
    expect(error.details).toEqual([{ path: '[0].route', message: expect.stringContaining(`"${b.id}@1"`) }]);
    const broadcast = await rejection(
      f.engine.cascades.broadcast(f.account.id, {
        fromName: 'Shop',
        text: 'x',
        route: 'rt_nope',
        recipients: ['99900000000', '99900000005'],
      }),
    );
    expect(broadcast.details).toEqual([{ path: 'route', message: expect.stringContaining('"rt_nope"') }]);
  });

  it('refuses a malformed route, and a route without a flash-call step for a flashcall message', async () => {
    const { b } = await boundAandB();
    const malformed = await rejection(
      f.engine.cascades.send(f.account.id, [
        cascade('99900000000', { route: 'rt_x@0' }),
        cascade('99900000000', { route: '' }),
        cascade('99900000000', { route: 'rt_x@2147483648' }),
      ]),
    );
    expect(malformed.details?.map((d) => d.path)).toEqual(['[0].route', '[1].route', '[2].route']);
    const flashcall = { fromName: 'Shop', toPhone: '99900000000', messageType: 'flashcall' as const, flashcallText: '1234' };
    const error = await rejection(f.engine.cascades.send(f.account.id, [{ ...flashcall, route: b.id }]));
    expect(error.details).toEqual([{ path: '[0].route', message: expect.stringMatching(/has no flash-call step/) }]);
    // The built-in flash call route carries one.
    const flash = await sendOne([{ ...flashcall, route: 'flashcall' }]);
    expect((await statusOf(flash.messageId)).route).toBe('flashcall@1');
  });
});
