import { afterEach, describe, expect, it } from 'vitest';
import { SpillwayError, createEngine, createFakeClock } from '@spillway/core';
import type { CascadeSendInput, Storage } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { testStorage } from '../support/engine-fixture.ts';
import { rejection } from '../support/cascade-helpers.ts';

// A `publicBaseUrl` that cannot name the public origin (createSpillway mounted in a host's server
// without `publicUrl`) throws: the engine refuses the cascades that would make a short link, and
// skips such a step of one accepted before, rather than send a link to the wrong address.

let storage: Storage | undefined;
afterEach(() => storage?.close());

async function engineWithOrigin() {
  const clock = createFakeClock(Date.UTC(2026, 10, 22, 12));
  storage = await testStorage();
  const simulator = createSimulator({ latencyMs: 200 });
  const origin: { url: string | null } = { url: 'https://shop.example/spillway' };
  const errors: unknown[] = [];
  const engine = createEngine({
    storage,
    channels: [simulator],
    hasher: createNodeHasher({ N: 2 ** 12 }),
    clock,
    onError: (error) => errors.push(error),
    publicBaseUrl: () => {
      if (origin.url === null) throw new SpillwayError('not_configured', 'short links need publicUrl');
      return origin.url;
    },
  });
  const account = await engine.accounts.create({ login: 'shop', password: 'correct horse', balance: 100 });
  await engine.accounts.approveAlphaName(account.id, 'Shop');
  const send = (text: string, id?: string) =>
    engine.cascades.send(account.id, [
      { fromName: 'Shop', toPhone: '99900000000', text, id, variables: [{ id: 'offer', value: 'https://example.com/offer' }] },
    ] as CascadeSendInput);
  const advance = async (ms: number) => {
    await engine.drain();
    await clock.advance(ms);
    await engine.drain();
  };
  return { engine, account, simulator, origin, errors, send, advance };
}

describe('short links without a known public origin', () => {
  it('refuse the cascade that makes one (not_configured, nothing stored); one without a short link is taken', async () => {
    const { engine, account, origin, send } = await engineWithOrigin();
    origin.url = null;
    const error = await rejection(send('See %short_url=offer%', 'refused-1'));
    expect(error).toMatchObject({ code: 'not_configured', status: 501 });
    expect(await rejection(engine.cascades.statusByTrackinId(account.id, 'refused-1'))).toMatchObject({ code: 'not_found' });
    const [plain] = await send('See %url=offer%');
    expect(plain?.messageId).toBeDefined();
  });

  it('skip the step of a cascade accepted while the origin was known, instead of failing every round', async () => {
    const { engine, account, simulator, origin, errors, send, advance } = await engineWithOrigin();
    const [accepted] = await send('See %short_url=offer%');
    origin.url = null;
    for (let i = 0; i < 6; i++) await advance(200);
    const status = await engine.cascades.statusByGuid(account.id, accepted!.messageId);
    expect(status.steps.map((s) => s.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect(status.steps[4]?.error).toContain('short links need publicUrl');
    expect(simulator.sent).toEqual([]);
    expect(errors).toEqual([]);
  });
});
