import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createFakeClock } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';

// An HTTP thread reads an account's alpha-names once a turn of the event loop, for all the sends
// of that turn. An approval another connection commits during the turn is not in that read: the
// send must still be accepted, since its client may just have been told the name is approved.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two engines on one SQLite file, as the API's threads or two processes open it. */
async function twoEngines() {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-alpha-'));
  const filename = join(dir, 'db.sqlite');
  const clock = createFakeClock(Date.UTC(2026, 10, 22, 12));
  const hasher = createNodeHasher({ N: 2 ** 12 });
  const open = async () => {
    const storage = createSqliteStorage({ filename });
    await storage.migrate();
    return createEngine({ storage, channels: [createSimulator({ latencyMs: 0 })], hasher, clock, worker: false });
  };
  const a = await open();
  const b = await open();
  cleanups.push(async () => {
    await b.stop();
    await a.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const account = await a.accounts.create({ login: 'shop', password: 'correct horse', balance: 100 });
  return { a, b, account };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('an alpha-name approved on another connection within the turn', () => {
  it('is accepted for a messaging API send and a cascade send checked in that turn, and refused where it is not approved', async () => {
    const { a, b, account } = await twoEngines();
    await a.accounts.approveAlphaName(account.id, 'Old');
    await nextTurn();
    // b reads the account's alpha-names for this turn: only Old.
    expect((await b.accounts.listAlphaNames(account.id)).map((n) => n.name)).toEqual(['Old']);
    await a.accounts.approveAlphaName(account.id, 'Shop', ['sms']);
    const sent = await b.messages.send(account.id, { messages: [{ from: 'Shop', to: '491510000001', text: 'Hello', type: 'sms' }] });
    expect(sent.messages).toHaveLength(1);
    // The same for a cascade, in a turn of its own (the send above may have ended the first).
    await nextTurn();
    expect((await b.accounts.listAlphaNames(account.id)).map((n) => n.name)).toEqual(['Old', 'Shop']);
    await a.accounts.approveAlphaName(account.id, 'Promo');
    const cascade = await b.cascades.send(account.id, [{ fromName: 'Promo', toPhone: '99900000000', text: 'Hello' }]);
    expect(cascade).toHaveLength(1);
    // Still refused on a channel it is not approved on, and when not approved at all.
    const refused = await b.messages
      .send(account.id, {
        messages: [
          { from: 'Shop', to: '491510000001', text: 'Hello', type: 'rcs' },
          { from: 'Nope', to: '491510000001', text: 'Hello', type: 'sms' },
        ],
      })
      .catch((e: unknown) => e as { status: number; details?: { path: string; message: string }[] });
    expect(refused).toMatchObject({ status: 400 });
    expect((refused as { details: { message: string }[] }).details.map((d) => d.message).sort()).toEqual([
      'alpha-name "Nope" is not an approved alpha-name of this account',
      'alpha-name "Shop" is not approved for channel rcs',
    ]);
  });
});
