import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

// The reference server as users run it, in a child process on a SQLite file, killed with
// SIGKILL or SIGTERM while it works through a load, restarted on the same file: every accepted
// message must end as it ends in a run without the crash, charged the same, and the balance
// consumed must equal the sum of the recorded costs.

const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'spillway-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = 'sk_crash_test_0123456789abcdef';
const H = { 'X-Authorization-Key': KEY, 'Content-Type': 'application/json' };

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Starts `spillway serve` on `db` and resolves once it answers /health. */
async function start(db: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'apps/server/src/cli.ts'), 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: '',
      SPILLWAY_DB: db,
      PORT: String(port),
      SPILLWAY_LOG_LEVEL: 'silent',
      SPILLWAY_SIMULATOR_LATENCY_MS: '300',
      SPILLWAY_RATE_MESSAGING: '100000/100000',
      SPILLWAY_RATE_DATA: '100000/100000',
      SPILLWAY_BOOTSTRAP_LOGIN: 'crash',
      SPILLWAY_BOOTSTRAP_PASSWORD: 'crash-password',
      SPILLWAY_BOOTSTRAP_API_KEY: KEY,
      SPILLWAY_BOOTSTRAP_ALPHA_NAMES: 'Shop',
      SPILLWAY_BOOTSTRAP_BALANCE: '1000',
    },
    stdio: 'ignore',
  });
  children.push(child);
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the server did not start');
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill(signal);
  return exited;
}

/** Numbers of the simulator: delivered, undeliverable then a delivered fallback, permanent error, read (SMS: delivered). */
function request(batch: number) {
  return {
    messages: Array.from({ length: 200 }, (_, i) => {
      const kind = i % 4;
      const to = `999${String(batch).padStart(2, '0')}${String(i).padStart(4, '0')}${['00', '02', '03', '05'][kind]}`;
      const fallbacks =
        kind === 1
          ? [{ from: 'Shop', to: `999${String(batch).padStart(2, '0')}${String(i).padStart(4, '0')}00`, type: 'sms', text: 'f' }]
          : undefined;
      return { from: 'Shop', to, type: 'sms', text: `m${i}`, ...(fallbacks ? { fallbacks } : {}) };
    }),
  };
}

async function send(port: number, batch: number): Promise<number[]> {
  const res = await fetch(`http://127.0.0.1:${port}/bat/messagelist`, { method: 'POST', headers: H, body: JSON.stringify(request(batch)) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Array<{ messageId: number }> }).messages.map((m) => m.messageId);
}

type Final = { status: string; cost: number };

async function finals(port: number, ids: number[]): Promise<Final[]> {
  return Promise.all(
    ids.map(async (id) => {
      const record = (await (await fetch(`http://127.0.0.1:${port}/bat/message/${id}`, { headers: H })).json()) as {
        deliverystatus: string;
        cost: number;
      };
      return { status: record.deliverystatus, cost: record.cost };
    }),
  );
}

/** What the wallet says was consumed: charges and refunds (restarts top the bootstrap balance up, so not the balance). */
async function consumed(port: number): Promise<number> {
  let total = 0;
  for (let page = 1; ; page++) {
    const url = `http://127.0.0.1:${port}/api/AlphaName/wallet/info?TransactionTypes=charge,refund&Page=${page}&PageSize=100`;
    const wallet = (await (await fetch(url, { headers: H })).json()) as { items: Array<{ amount: number }> };
    total += wallet.items.reduce((sum, t) => sum + t.amount, 0);
    if (wallet.items.length < 100) break;
  }
  return Math.round(-total * 100) / 100;
}

/** Waits until every message is final, and answers the finals with what the wallet consumed. */
async function settled(port: number, ids: number[]): Promise<{ finals: Final[]; consumed: number }> {
  for (let i = 0; i < 300; i++) {
    const now = await finals(port, ids);
    if (now.every((f) => f.status !== 'processing' && f.status !== 'scheduled')) return { finals: now, consumed: await consumed(port) };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('messages still not final');
}

const sum = (finals: Final[]) => Math.round(finals.reduce((total, f) => total + f.cost, 0) * 100) / 100;

/** Sends three requests, `crash`ing the server at the moments it chooses; answers the settled outcome. */
async function load(name: string, crash: (child: ChildProcess, moment: number) => Promise<boolean>) {
  const db = join(dir, `${name}.db`);
  const port = await freePort();
  let child = await start(db, port);
  const ids: number[] = [];
  for (let batch = 0; batch < 3; batch++) {
    ids.push(...(await send(port, batch)));
    if (await crash(child, batch)) child = await start(db, port);
  }
  const outcome = await settled(port, ids);
  await stop(child, 'SIGTERM');
  return outcome;
}

describe('the reference server through crashes', () => {
  it('ends every message as without the crash after kill -9 and SIGTERM at different moments, charging exactly the recorded costs', async () => {
    const calm = await load('calm', async () => false);
    expect(new Set(calm.finals.map((f) => f.status))).toEqual(new Set(['delivered', 'permanenterror']));
    expect(calm.consumed).toBe(sum(calm.finals));

    const crashed = await load('crashed', async (child, batch) => {
      // Right after acceptance; while the first reports are due; after the last request mid-drain (SIGTERM).
      const wait = [0, 250, 150][batch]!;
      await new Promise((r) => setTimeout(r, wait));
      const code = await stop(child, batch === 2 ? 'SIGTERM' : 'SIGKILL');
      if (batch === 2) expect(code).toBe(0);
      return true;
    });
    expect(crashed.finals).toEqual(calm.finals);
    expect(crashed.consumed).toBe(calm.consumed);
  }, 120_000);
});
