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

const dir = mkdtempSync(join(tmpdir(), 'spillway-mo-'));

let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
beforeAll(async () => {
  receiver = await startCallbackReceiver();
});
afterAll(async () => {
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The server with `drivers` configured; Acme's incoming messages go to the receiver. */
async function serverWith(config: unknown): Promise<RunningFixture> {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  const f = await startServer({ SPILLWAY_CONFIG: file, SPILLWAY_ALLOW_PRIVATE_URLS: 'true' });
  const acme = (await f.server.engine.accounts.getByLogin(LOGIN))!;
  await f.server.engine.accounts.setAlphaNameCallback(acme.id, 'Acme', receiver.url);
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
      const bodies = await until(
        async () => receiver.bodies.slice(before),
        (b) => b.length > 0,
      );
      expect(bodies[0]).toMatchObject({ alphaName: 'Acme', phoneNumber: '4915100000128', text: 'STOP' });
      // It is the account's own record, readable back.
      const record = await (await f.call(`/sandbox/inbound/${String(bodies[0]!['idUuid'])}`)).json();
      expect(record).toMatchObject({ phoneNumber: '4915100000128', text: 'STOP', delivery: { status: 'delivered' } });

      // An address no account owns is refused (the SMSC keeps it): nothing is recorded or called.
      smsc.deliverMo('4915100000129', 'Nobody', 'hello?');
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.bodies.filter((b) => b['phoneNumber'] === '4915100000129')).toEqual([]);
    } finally {
      await f.close();
    }
  });

  it('a provider callback whose text holds U+0000 is kept with U+FFFD in its place, not refused', async () => {
    const f = await serverWithKannel();
    try {
      // The URL Kannel's smsbox is given, filled in as smsbox fills it in (%p, %P, %a).
      const mo = kannelMoUrl({ callbackBaseUrl: f.url, callbackSecret, password: 'unused' })
        .replace('%p', '4915100000011')
        .replace('%P', 'Acme')
        .replace('%a', 'STOP%00now');
      const before = receiver.bodies.length;
      expect((await fetch(mo)).status).toBe(200);
      const bodies = await until(
        async () => receiver.bodies.slice(before),
        (b) => b.length > 0,
      );
      expect(bodies[0]).toMatchObject({ phoneNumber: '4915100000011', text: 'STOP\uFFFDnow' });
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
