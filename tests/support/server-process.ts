import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { expect } from 'vitest';
import type { LogLine } from './server-log.ts';
import { SPILLWAY_CLI } from './spillway-command.ts';

// The reference server as users run it, in a child process, and the load the crash tests put on it.

const root = resolve(import.meta.dirname, '../..');
export const CRASH_KEY = 'sk_crash_test_0123456789abcdef';
const H = { 'X-Authorization-Key': CRASH_KEY, 'Content-Type': 'application/json' };

export { freePort, freePorts } from '../../packages/channels/src/testing/free-ports.ts';

/**
 * Spawns `spillway serve` with `env` (the database, the role) on `port`, without waiting for it.
 * With `log`, its log lines go there (set `SPILLWAY_LOG_LEVEL` in `env`: silent by default).
 */
export function spawnServer(env: Record<string, string>, port: number, children: ChildProcess[], log?: LogLine[]): ChildProcess {
  const child = spawn(process.execPath, [...SPILLWAY_CLI, 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: '',
      PORT: String(port),
      SPILLWAY_LOG_LEVEL: 'silent',
      SPILLWAY_SIMULATOR_LATENCY_MS: '300',
      SPILLWAY_RATE_MESSAGING: '100000/100000',
      SPILLWAY_RATE_DATA: '100000/100000',
      SPILLWAY_BOOTSTRAP_LOGIN: 'crash',
      SPILLWAY_BOOTSTRAP_PASSWORD: 'crash-password',
      SPILLWAY_BOOTSTRAP_API_KEY: CRASH_KEY,
      SPILLWAY_BOOTSTRAP_ALPHA_NAMES: 'Shop',
      SPILLWAY_BOOTSTRAP_BALANCE: '1000',
      ...env,
    },
    stdio: ['ignore', log ? 'pipe' : 'ignore', 'ignore'],
  });
  if (log) {
    let rest = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      for (const line of lines) if (line.startsWith('{')) log.push(JSON.parse(line) as LogLine);
    });
  }
  children.push(child);
  return child;
}

/** Starts `spillway serve` with `env` (the database) on `port`; resolves once it answers /health. With `log`, see {@link spawnServer}. */
export async function startProcess(
  env: Record<string, string>,
  port: number,
  children: ChildProcess[],
  log?: LogLine[],
): Promise<ChildProcess> {
  const child = spawnServer(env, port, children, log);
  for (let i = 0; i < 300; i++) {
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

export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill(signal);
  return exited;
}

/** 200 messages on simulator numbers: delivered, undeliverable then a delivered fallback, permanent error, read (SMS: delivered). */
export function crashRequest(batch: number) {
  return {
    messages: Array.from({ length: 200 }, (_, i) => {
      const base = `999${String(batch).padStart(2, '0')}${String(i).padStart(4, '0')}`;
      const kind = i % 4;
      const fallbacks = kind === 1 ? [{ from: 'Shop', to: `${base}00`, type: 'sms', text: 'f' }] : undefined;
      return {
        from: 'Shop',
        to: `${base}${['00', '02', '03', '05'][kind]}`,
        type: 'sms',
        text: `m${i}`,
        ...(fallbacks ? { fallbacks } : {}),
      };
    }),
  };
}

/** The final status and cost each message of {@link crashRequest} has in a run without crashes. */
export function expectedFinal(index: number): Final {
  return [
    { status: 'delivered', cost: 0.05 },
    { status: 'delivered', cost: 0.1 },
    { status: 'permanenterror', cost: 0.05 },
    { status: 'delivered', cost: 0.05 },
  ][index % 4]!;
}

export async function sendBatch(port: number, batch: number): Promise<number[]> {
  const res = await fetch(`http://127.0.0.1:${port}/bat/messagelist`, {
    method: 'POST',
    headers: H,
    body: JSON.stringify(crashRequest(batch)),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Array<{ messageId: number }> }).messages.map((m) => m.messageId);
}

export type Final = { status: string; cost: number };

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

/** What the wallet says was consumed: charges and refunds, whatever the opening balance and top-ups were. */
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
export async function settled(port: number, ids: number[]): Promise<{ finals: Final[]; consumed: number }> {
  for (let i = 0; i < 300; i++) {
    const now = await finals(port, ids);
    if (now.every((f) => f.status !== 'processing' && f.status !== 'scheduled')) return { finals: now, consumed: await consumed(port) };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('messages still not final');
}

export const sumOfCosts = (list: Final[]) => Math.round(list.reduce((total, f) => total + f.cost, 0) * 100) / 100;
