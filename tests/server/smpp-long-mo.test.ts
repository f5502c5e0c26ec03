import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSmsc } from '../../packages/channels/src/testing/smsc-server.ts';
import type { TestSmsc } from '../../packages/channels/src/testing/smsc-server.ts';
import { LOGIN, startServer, until } from '../support/server-fixture.ts';
import { startCallbackReceiver } from '../support/callback-receiver.ts';

const dir = mkdtempSync(join(tmpdir(), 'spillway-long-mo-'));

let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
let smsc: TestSmsc;
beforeAll(async () => {
  receiver = await startCallbackReceiver();
  smsc = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
});
afterAll(async () => {
  await smsc?.close();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A part of a long MO to Acme with an 8-bit concatenation UDH (letters and spaces are the same septets in GSM 03.38). */
const part = (ref: number, total: number, seq: number, text: string) => ({
  source_addr: '4915100000320',
  destination_addr: 'Acme',
  esm_class: 0x40,
  data_coding: 0,
  short_message: Buffer.concat([Buffer.from([0x05, 0x00, 0x03, ref, total, seq]), Buffer.from(text, 'latin1')]),
});

describe('a long SMPP MO reaches the callback as one incoming message', () => {
  it('two UDH parts (the new-user trial: they came as two callbacks without part numbers) make one callback with the whole text', async () => {
    const file = join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        drivers: { smsc: { type: 'smpp', host: '127.0.0.1', port: smsc.port, systemId: 'spillway', password: 'secret' } },
        channels: { sms: ['smsc'] },
      }),
    );
    const f = await startServer({ SPILLWAY_CONFIG: file, SPILLWAY_ALLOW_PRIVATE_URLS: 'true' });
    try {
      const acme = (await f.server.engine.accounts.getByLogin(LOGIN))!;
      await f.server.engine.accounts.setAlphaNameCallback(acme.id, 'Acme', receiver.url);
      await until(
        async () => smsc.binds,
        (n) => n > 0,
      );
      const before = receiver.bodies.length;
      // Out of order, as an SMSC may deliver them.
      smsc.deliver(part(0x42, 2, 2, 'and the second half.'));
      smsc.deliver(part(0x42, 2, 1, 'First half of a long MO '));
      const bodies = await until(
        async () => receiver.bodies.slice(before),
        (b) => b.length > 0,
      );
      expect(bodies[0]).toMatchObject({
        alphaName: 'Acme',
        phoneNumber: '4915100000320',
        text: 'First half of a long MO and the second half.',
      });
      // The SMSC delivers again the part it was asked to keep: acknowledged, no second callback.
      smsc.retryDeliveries();
      await until(
        async () => smsc.unacknowledged,
        (n) => n === 0,
      );
      await new Promise((r) => setTimeout(r, 200));
      expect(receiver.bodies.slice(before)).toHaveLength(1);
    } finally {
      await f.close();
    }
  });
});
