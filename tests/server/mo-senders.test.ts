import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kannelMoUrl } from '@spillway/channels';
import { parseDriversConfig } from '../../apps/server/src/drivers-config.ts';
import { startTestSmsc } from '../../packages/channels/src/testing/smsc-server.ts';
import type { TestSmsc } from '../../packages/channels/src/testing/smsc-server.ts';
import { LOGIN, startServer, until } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';
import { startCallbackReceiver } from '../support/callback-receiver.ts';
import { WARN, capturedLog } from '../support/server-log.ts';
import type { LogLine } from '../support/server-log.ts';
import { testDatabase } from '../support/test-database.ts';

// MOs Spillway acknowledged and dropped although a network delivers them: an empty SMS (a phone
// can send one), and a sender in national format (`01511234567`, SMPP TON 2, or TON 0 with a
// leading 0, as Kannel's `%p` passes it on), which the engine refused as no E.164 number. Through
// the real drivers (test SMSCs, Kannel's MO URL) into one server, on SQLite or PostgreSQL
// (SPILLWAY_TEST_STORAGE=postgres): drivers `smsc` and `kannel` without a country, `smsc-de` and
// `kannel-de` with `country: "DE"`.
const dir = mkdtempSync(join(tmpdir(), 'spillway-mo-senders-'));
const database = testDatabase('mo_senders');
const callbackSecret = 'kannel-mo-secret-0123456789';

let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
/** The SMSC of the driver without a country, and that of the driver with one. */
let smsc: TestSmsc;
let smscDe: TestSmsc;
let f: RunningFixture;
let lines: LogLine[];

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  smsc = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
  smscDe = await startTestSmsc({ systemId: 'spillway', password: 'secret' });
  const smpp = (port: number) => ({ type: 'smpp', host: '127.0.0.1', port, systemId: 'spillway', password: 'secret' });
  const kannel = { type: 'kannel', sendsmsUrl: 'http://127.0.0.1:9/cgi-bin/sendsms', username: 'u', password: 'unused', callbackSecret };
  const file = join(dir, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      drivers: {
        smsc: smpp(smsc.port),
        'smsc-de': { ...smpp(smscDe.port), country: 'DE' },
        kannel,
        'kannel-de': { ...kannel, country: 'DE' },
      },
      channels: { sms: ['smsc', 'smsc-de', 'kannel', 'kannel-de'] },
    }),
  );
  const log = capturedLog();
  lines = log.lines;
  // The drivers and the MO route on this thread, on PostgreSQL too, so that their lines reach the captured log.
  const oneThread = { SPILLWAY_WORKER_THREAD: 'false', SPILLWAY_HTTP_THREADS: '1' };
  f = await startServer(
    { ...database.env, ...oneThread, SPILLWAY_CONFIG: file, SPILLWAY_ALLOW_PRIVATE_URLS: 'true' },
    { logger: log.logger },
  );
  const acme = (await f.server.engine.accounts.getByLogin(LOGIN))!;
  await f.server.engine.accounts.setAlphaNameCallback(acme.id, 'Acme', receiver.url);
  await until(
    async () => smsc.binds + smscDe.binds,
    (n) => n === 2,
  );
}, 120_000);

afterAll(async () => {
  await f?.close();
  await receiver?.close();
  await smsc?.close();
  await smscDe?.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** smsbox's request to the MO URL of the Kannel driver `name`, its escape codes filled in as smsbox does. */
async function kannelMo(name: 'kannel' | 'kannel-de', from: string, text: string): Promise<number> {
  const url = kannelMoUrl({ name, callbackBaseUrl: f.url, callbackSecret, password: 'unused' });
  // smsbox url-encodes what it fills in: a `+` comes as %2B.
  const codes: Record<string, string> = { p: encodeURIComponent(from), P: 'Acme', b: encodeURIComponent(text), c: '0', C: 'UTF-8' };
  return (await fetch(url.replace(/%([a-zA-Z])/g, (code, c: string) => codes[c] ?? code))).status;
}

/** Polls longer than the fixture's default: PostgreSQL on a busy machine takes its time. */
const eventually = <T>(read: () => T, done: (value: T) => boolean) => until(async () => read(), done, 1000);

/** The senders of the callbacks whose text is `text`, once one came. */
const sendersOf = async (text: string) =>
  (
    await eventually(
      () => receiver.bodies.filter((b) => b['text'] === text),
      (b) => b.length > 0,
    )
  ).map((b) => b['phoneNumber']);

/** A single-part MO as the SMSC sends it, its sender of type `ton`. */
const mo = (from: string, ton: number, text: string) => ({
  source_addr: from,
  source_addr_ton: ton,
  source_addr_npi: ton === 5 ? 0 : 1,
  destination_addr: 'Acme',
  esm_class: 0,
  data_coding: 0,
  short_message: text,
});

/** Waits until every `deliver_sm` of `s` was answered; the answers since `from`. */
async function answersOf(s: TestSmsc, from: number, count: number): Promise<number[]> {
  await eventually(
    () => s.answers.length,
    (n) => n >= from + count,
  );
  return s.answers.slice(from);
}

describe('MOs that were dropped: an empty text, a sender in national format', () => {
  it('an empty SMS over SMPP and over Kannel is recorded with an empty text, sent to the callback and readable back', async () => {
    const answers = smsc.answers.length;
    const before = receiver.bodies.length;
    smsc.deliverMo('4915100000151', 'Acme', '');
    expect(await kannelMo('kannel', '4915100000152', '')).toBe(200);
    const bodies = await eventually(
      () => receiver.bodies.slice(before),
      (b) => b.length > 1,
    );
    expect(bodies.map((b) => [b['phoneNumber'], b['text']]).sort()).toEqual([
      ['4915100000151', ''],
      ['4915100000152', ''],
    ]);
    expect(await answersOf(smsc, answers, 1)).toEqual([0]);
    const record = await (await f.call(`/sandbox/inbound/${String(bodies[0]!['idUuid'])}`)).json();
    expect(record).toMatchObject({ alphaName: 'Acme', text: '' });
    expect(lines.filter((l) => l.msg.startsWith('incoming message dropped'))).toEqual([]);
    // The simulator's injection is the client's own input: it keeps the rule of a non-empty text.
    const injected = await f.call('/sandbox/inbound', { json: { alphaName: 'Acme', phoneNumber: '4915100000153', text: '' } });
    expect(injected.status).toBe(400);
  });

  it("a national sender is read in the driver's country: SMPP TON 2 (with or without the trunk 0), TON 0 with a leading 0, and Kannel's %p", async () => {
    const answers = smscDe.answers.length;
    smscDe.deliver(mo('01511000001', 2, 'national with trunk prefix'));
    smscDe.deliver(mo('1511000002', 2, 'national without trunk prefix'));
    smscDe.deliver(mo('01511000003', 0, 'unknown type, leading 0'));
    // International (TON 1) and the 00 prefix are read as before.
    smscDe.deliver(mo('4915100000154', 1, 'international'));
    smscDe.deliver(mo('004915100000155', 0, 'international with 00'));
    expect(await kannelMo('kannel-de', '01511000004', 'kannel national')).toBe(200);
    expect(await kannelMo('kannel-de', '+4915100000156', 'kannel plus')).toBe(200);
    expect(await sendersOf('national with trunk prefix')).toEqual(['491511000001']);
    expect(await sendersOf('national without trunk prefix')).toEqual(['491511000002']);
    expect(await sendersOf('unknown type, leading 0')).toEqual(['491511000003']);
    expect(await sendersOf('international')).toEqual(['4915100000154']);
    expect(await sendersOf('international with 00')).toEqual(['4915100000155']);
    expect(await sendersOf('kannel national')).toEqual(['491511000004']);
    expect(await sendersOf('kannel plus')).toEqual(['4915100000156']);
    // An alphanumeric sender (TON 5) is kept as it is, not read as a national number: no phone
    // number, dropped as before.
    smscDe.deliver(mo('01511000007', 5, 'alphanumeric'));
    // Every deliver_sm acknowledged: nothing is left for the SMSC to deliver again.
    expect(await answersOf(smscDe, answers, 6)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(smscDe.unacknowledged).toBe(0);
    expect(receiver.bodies.filter((b) => b['text'] === 'alphanumeric')).toEqual([]);
  });

  it('without a country a national sender is still dropped (acknowledged), with a warning that names the setting', async () => {
    const answers = smsc.answers.length;
    smsc.deliver(mo('01511000005', 2, 'no country, TON 2'));
    // Read as international, 15112345678 would be a possible US number: TON 2 says it is not one.
    smsc.deliver(mo('15112345678', 2, 'no country, TON 2, no trunk prefix'));
    smsc.deliver(mo('01511000006', 0, 'no country, leading 0'));
    expect(await kannelMo('kannel', '01511000008', 'no country, kannel')).toBe(200);
    // Acknowledged (not ESME_RX_T_APPN): the SMSC would deliver them again for ever.
    expect(await answersOf(smsc, answers, 3)).toEqual([0, 0, 0]);
    const dropped = await eventually(
      () => lines.filter((l) => l.msg.startsWith('incoming message dropped') && (l['driver'] === 'smsc' || l['driver'] === 'kannel')),
      (l) => l.length >= 2,
    );
    // One line a minute per driver, address and reason, counting the others; it names the setting.
    const line = (driver: string) =>
      expect.objectContaining({
        level: WARN,
        driver,
        address: 'Acme',
        reason: 'invalid',
        error: expect.stringContaining("driver's `country`"),
      });
    expect(dropped).toHaveLength(2);
    expect(dropped).toEqual(expect.arrayContaining([line('smsc'), line('kannel')]));
    expect(JSON.stringify(dropped)).not.toMatch(/1511000|15112345678/);
    expect(receiver.bodies.filter((b) => String(b['text']).startsWith('no country'))).toEqual([]);
  });

  it('the country is an ISO 3166 alpha-2 code, checked when the configuration is read', () => {
    const config = (country: unknown) => ({
      drivers: {
        smsc: { type: 'smpp', host: 'smsc', systemId: 'x', password: 'p', country },
        kannel: { type: 'kannel', sendsmsUrl: 'http://k', username: 'u', password: 'p', country },
      },
      channels: {},
    });
    expect(parseDriversConfig(config('DE')).drivers).toMatchObject({ smsc: { country: 'DE' }, kannel: { country: 'DE' } });
    // Lower case, alpha-3, and a code with no numbering plan.
    for (const bad of ['de', 'DEU', 'XX']) {
      expect(() => parseDriversConfig(config(bad)), bad).toThrow(/drivers\.smsc\.country: .*alpha-2[\s\S]*drivers\.kannel\.country: /);
    }
  });
});
