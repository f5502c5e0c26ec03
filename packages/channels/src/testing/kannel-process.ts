import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from './free-ports.ts';

const BEARERBOX = ['/usr/sbin/bearerbox', '/usr/local/sbin/bearerbox'].find((p) => existsSync(p));
const SMSBOX = ['/usr/sbin/smsbox', '/usr/local/sbin/smsbox'].find((p) => existsSync(p));
const FAKESMSC = ['/usr/lib/kannel/test/fakesmsc', '/usr/local/lib/kannel/test/fakesmsc'].find((p) => existsSync(p));
const TEMPLATE = new URL('../../test-fixtures/kannel/kannel.conf', import.meta.url);

/** Why Kannel cannot run here, or `null` when bearerbox, smsbox and fakesmsc are installed. */
export const kannelMissing: string | null =
  BEARERBOX && SMSBOX && FAKESMSC ? null : 'Kannel is not installed (apt-get install -y kannel kannel-extras)';

export interface KannelProcess {
  sendsmsUrl: string;
  password: string;
  /** Lines fakesmsc printed for messages it received (`<from> <to> text <text>`). */
  received(): string[];
  /** Restarts fakesmsc, sending `mo` (`from to text words`) once connected. */
  restartFakeSmsc(mo?: string): Promise<void>;
  stop(): Promise<void>;
}

async function until(what: string, ok: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Kannel: ${what} not ready within ${ms} ms`);
}

/**
 * Starts a real Kannel (bearerbox, smsbox, and fakesmsc as the SMSC) on free ports, from the
 * config in `test-fixtures/kannel/kannel.conf`; MO messages go to `moUrl`.
 */
export async function startKannel(options: { moUrl: string }): Promise<KannelProcess> {
  if (kannelMissing) throw new Error(kannelMissing);
  const dir = mkdtempSync(join(tmpdir(), 'spillway-kannel-'));
  const [admin, smsbox, fake, sendsms] = (await freePorts(4)) as [number, number, number, number];
  const password = 'kannel-test';
  const conf = readFileSync(TEMPLATE, 'utf8')
    .replaceAll('{ADMIN_PORT}', String(admin))
    .replaceAll('{SMSBOX_PORT}', String(smsbox))
    .replaceAll('{FAKE_PORT}', String(fake))
    .replaceAll('{SENDSMS_PORT}', String(sendsms))
    .replaceAll('{DIR}', dir)
    .replaceAll('{PASSWORD}', password)
    .replaceAll('{MO_URL}', options.moUrl);
  const file = join(dir, 'kannel.conf');
  writeFileSync(file, conf);
  const children: ChildProcess[] = [];
  let fakeOut = '';
  let fakesmsc: ChildProcess | null = null;

  // Output nobody reads would fill the pipe and block the box: bearerbox and smsbox log to files.
  const start = (bin: string, args: string[], output: 'pipe' | 'ignore' = 'ignore') => {
    const child = spawn(bin, args, { stdio: ['ignore', output, output] });
    children.push(child);
    return child;
  };
  const startFake = (mo?: string) => {
    const args = ['-H', '127.0.0.1', '-r', String(fake), '-i', '0.01', '-m', mo ? '1' : '0'];
    const child = start(FAKESMSC!, [...args, mo ?? '1 2 text unused'], 'pipe');
    // fakesmsc logs to stderr.
    child.stderr?.on('data', (d: Buffer) => (fakeOut += d.toString()));
    child.stdout?.on('data', (d: Buffer) => (fakeOut += d.toString()));
    fakesmsc = child;
  };
  const status = async () => (await fetch(`http://127.0.0.1:${admin}/status.txt?password=spillway`)).text();

  start(BEARERBOX!, [file]);
  await until('bearerbox', async () => (await status()).includes('Kannel bearerbox'));
  start(SMSBOX!, [file]);
  startFake();
  await until('smsbox and fakesmsc', async () => {
    const s = await status();
    return /fake\[fake\].*\(online/i.test(s) && /smsbox:\(none\)/i.test(s);
  });
  await until('sendsms', async () => (await fetch(`http://127.0.0.1:${sendsms}/cgi-bin/sendsms`)).status > 0);

  return {
    sendsmsUrl: `http://127.0.0.1:${sendsms}/cgi-bin/sendsms`,
    password,
    received: () => [...fakeOut.matchAll(/Got message \d+: <([^>]*)>/g)].map((m) => m[1]!),
    async restartFakeSmsc(mo) {
      const old = fakesmsc;
      if (old) {
        old.kill('SIGTERM');
        await new Promise((r) => old.once('exit', r));
      }
      startFake(mo);
      await until('fakesmsc', async () => /fake\[fake\].*online/i.test(await status()));
    },
    async stop() {
      for (const child of children.reverse()) {
        if (child.exitCode === null) {
          child.kill('SIGTERM');
          await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(r, 3000))]);
          if (child.exitCode === null) child.kill('SIGKILL');
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
