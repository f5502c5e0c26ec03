import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kannelMoUrl } from '@spillway/channels';
import { startTestSmsc } from '../../packages/channels/src/testing/smsc-server.ts';
import type { TestSmsc } from '../../packages/channels/src/testing/smsc-server.ts';
import { kannelMissing, startKannel } from '../../packages/channels/src/testing/kannel-process.ts';
import type { KannelProcess } from '../../packages/channels/src/testing/kannel-process.ts';
import { LOGIN, startServer, until } from '../support/server-fixture.ts';
import { startCallbackReceiver } from '../support/callback-receiver.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { WARN, capturedLog } from '../support/server-log.ts';
import type { CreateServerOptions } from '../../apps/server/src/create-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'spillway-mo-'));

let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
beforeAll(async () => {
  receiver = await startCallbackReceiver();
});
afterAll(async () => {
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A number Acme has approved (as digits) besides its alpha-name. */
const ACME_NUMBER = '4915200000000';

/** The URL given to smsbox, filled in as smsbox fills in its escape codes (`%p`, `%P`, `%b`, ...). */
const filled = (url: string, codes: Record<string, string>) => url.replace(/%([a-zA-Z])/g, (code, c: string) => codes[c] ?? code);

/** The server with `drivers` configured; Acme's incoming messages go to the receiver. */
async function serverWith(config: unknown, options: CreateServerOptions = {}): Promise<RunningFixture> {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  const f = await startServer({ SPILLWAY_CONFIG: file, SPILLWAY_ALLOW_PRIVATE_URLS: 'true' }, options);
  const acme = (await f.server.engine.accounts.getByLogin(LOGIN))!;
  await f.server.engine.accounts.setAlphaNameCallback(acme.id, 'Acme', receiver.url);
  // A number of Acme's, approved as digits: MOs name it with a + too.
  await f.server.engine.accounts.approveAlphaName(acme.id, ACME_NUMBER, ['sms']);
  await f.server.engine.accounts.setAlphaNameCallback(acme.id, ACME_NUMBER, receiver.url);
  return f;
}

/** The secret Kannel's MO URL is signed with in these tests. */
const callbackSecret = 'kannel-mo-secret-0123456789';

/** The server with one Kannel driver on SMS, whose MO route takes URLs signed with `callbackSecret`. */
function serverWithKannel(): Promise<RunningFixture> {
  return serverWith({
    drivers: {
      kannel: {
        type: 'kannel',
        sendsmsUrl: 'http://127.0.0.1:9/cgi-bin/sendsms',
        username: 'spillway',
        password: 'unused',
        callbackSecret,
      },
    },
    channels: { sms: ['kannel'] },
  });
}

describe('incoming SMS from drivers reach the account that owns the address (section 6)', () => {
  let smsc: TestSmsc;
  beforeAll(async () => {
    smsc = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
  });
  afterAll(async () => {
    await smsc?.close();
  });

  it('an SMPP deliver_sm MO is recorded for the owner of the alpha-name and sent to its callback, before any send', async () => {
    const f = await serverWith({
      drivers: { smsc: { type: 'smpp', host: '127.0.0.1', port: smsc.port, systemId: 'spillway', password: 'secret' } },
      channels: { sms: ['smsc'] },
    });
    try {
      // The workers bind at start: an MO arrives although nothing was sent yet.
      await until(
        async () => smsc.binds,
        (n) => n > 0,
      );
      const before = receiver.bodies.length;
      smsc.deliverMo('4915100000128', 'Acme', 'STOP');
      // Sent to Acme's number in international format with a +: its owner is found all the same.
      smsc.deliverMo('+4915100000127', `+${ACME_NUMBER}`, 'START');
      const bodies = await until(
        async () => receiver.bodies.slice(before),
        (b) => b.length > 1,
      );
      const stop = bodies.find((b) => b['text'] === 'STOP');
      expect(stop).toMatchObject({ alphaName: 'Acme', phoneNumber: '4915100000128', text: 'STOP' });
      expect(bodies.find((b) => b['text'] === 'START')).toMatchObject({ alphaName: ACME_NUMBER, phoneNumber: '4915100000127' });
      // It is the account's own record, readable back.
      const record = await (await f.call(`/sandbox/inbound/${String(stop!['idUuid'])}`)).json();
      expect(record).toMatchObject({ phoneNumber: '4915100000128', text: 'STOP', delivery: { status: 'delivered' } });

      // An address no account owns is refused (the SMSC keeps it): nothing is recorded or called.
      smsc.deliverMo('4915100000129', 'Nobody', 'hello?');
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.bodies.filter((b) => b['phoneNumber'] === '4915100000129')).toEqual([]);
    } finally {
      await f.close();
    }
  });

  // Regression: an SMSC writing the sender with the international prefix 00 had every MO refused
  // as invalid and answered ESME_RX_T_APPN, so it delivered them again for ever.
  it('an SMPP MO from a sender written with 00 arrives with its digits; one from a sender that is no number is acknowledged, dropped and logged', async () => {
    const own = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
    const { logger, lines } = capturedLog();
    const f = await serverWith(
      {
        drivers: { smsc: { type: 'smpp', host: '127.0.0.1', port: own.port, systemId: 'spillway', password: 'secret' } },
        channels: { sms: ['smsc'] },
      },
      { logger },
    );
    try {
      await until(
        async () => own.binds,
        (n) => n > 0,
      );
      const before = receiver.bodies.length;
      own.deliverMo('004915100000131', 'Acme', 'HELLO');
      const bodies = await until(
        async () => receiver.bodies.slice(before),
        (b) => b.length > 0,
      );
      expect(bodies[0]).toMatchObject({ alphaName: 'Acme', phoneNumber: '4915100000131', text: 'HELLO' });

      own.deliverMo('0012', 'Acme', 'never taken');
      await until(
        async () => own.answers.length,
        (n) => n > 1,
      );
      // Acknowledged (not ESME_RX_T_APPN), so the SMSC has nothing left to deliver again.
      expect(own.answers).toEqual([0, 0]);
      expect(own.unacknowledged).toBe(0);
      expect(receiver.bodies.filter((b) => b['text'] === 'never taken')).toEqual([]);
      const dropped = lines.filter((l) => l.msg.startsWith('incoming message dropped'));
      expect(dropped).toEqual([
        expect.objectContaining({
          level: WARN,
          driver: 'smsc',
          address: 'Acme',
          reason: 'invalid',
          error: expect.stringContaining('phoneNumber'),
        }),
      ]);
      expect(JSON.stringify(dropped)).not.toContain('0012');
    } finally {
      await f.close();
      await own.close();
    }
  });

  it('a provider callback whose text holds U+0000 is kept with U+FFFD in its place, not refused', async () => {
    const f = await serverWithKannel();
    try {
      const url = kannelMoUrl({ callbackBaseUrl: f.url, callbackSecret, password: 'unused' });
      const mo = filled(url, { p: '4915100000011', P: 'Acme', b: 'STOP%00now', c: '0', C: 'UTF-8' });
      // The MO URL of older releases (text=%a, no coding or charset), still in users' kannel.conf.
      const older = filled(url.replace(/&text=.*$/, '&text=%a'), { p: '4915100000012', P: 'Acme', a: 'STOP%00now' });
      const before = receiver.bodies.length;
      expect((await fetch(mo)).status).toBe(200);
      expect((await fetch(older)).status).toBe(200);
      const bodies = await until(
        async () => receiver.bodies.slice(before),
        (b) => b.length > 1,
      );
      expect(bodies).toEqual([
        expect.objectContaining({ phoneNumber: '4915100000011', text: 'STOP\uFFFDnow' }),
        expect.objectContaining({ phoneNumber: '4915100000012', text: 'STOP\uFFFDnow' }),
      ]);
    } finally {
      await f.close();
    }
  });

  it.skipIf(kannelMissing)(
    `a Kannel MO (a real smsbox, fakesmsc) goes through /channels/{name}/mo${kannelMissing ? ` (skipped: ${kannelMissing})` : ''}`,
    async () => {
      const f = await serverWithKannel();
      let kannel: KannelProcess | undefined;
      try {
        kannel = await startKannel({ moUrl: kannelMoUrl({ callbackBaseUrl: f.url, callbackSecret, password: 'unused' }) });
        const before = receiver.bodies.length;
        await kannel.restartFakeSmsc('4915100000009 Acme text STOP please');
        const bodies = await until(
          async () => receiver.bodies.slice(before),
          (b) => b.length > 0,
          600,
        );
        expect(bodies[0]).toMatchObject({ alphaName: 'Acme', phoneNumber: '4915100000009', text: 'STOP please' });

        // A UCS-2 MO ("Привет ✓" in UTF-16BE), sent to Acme's number with a +.
        const next = receiver.bodies.length;
        await kannel.restartFakeSmsc(`+4915100000012 +${ACME_NUMBER} ucs2 %04%1F%04%40%048%042%045%04B%00%20%27%13`);
        const ucs2 = await until(
          async () => receiver.bodies.slice(next),
          (b) => b.length > 0,
          600,
        );
        expect(ucs2[0]).toMatchObject({ alphaName: ACME_NUMBER, phoneNumber: '4915100000012', text: 'Привет ✓' });

        // A forged MO (no valid signature) is refused.
        const forged = await fetch(`${f.url}/channels/kannel/mo?sig=x&from=4915100000010&to=Acme&text=hi`);
        expect(forged.status).toBe(403);
      } finally {
        await kannel?.stop();
        await f.close();
      }
    },
    60_000,
  );
});
