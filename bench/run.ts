/**
 * Spillway benchmarks: `pnpm bench`. Prints bulk-ingest messages/s for 5000-message requests (in
 * the engine, and over HTTP on a real port) and end-to-end messages/s to `delivered` on the
 * simulator. With DATABASE_URL set, the engine ingest also runs on PostgreSQL (in a throwaway
 * schema). Then the responsiveness of the reference server (its own process) while a backlog of
 * 100,000 messages comes due (`bench/backlog.ts`). Figures go to BENCHMARKS.md; nothing here is
 * asserted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';
import { createPostgresStorage } from '@spillway/postgres';
import type { Storage } from '@spillway/core';
import { createServer, readConfig } from '@spillway/server';
import { backlog } from './backlog.ts';

const BATCH = 5000;
const dir = mkdtempSync(join(tmpdir(), 'spillway-bench-'));

function request(batch: number, salt: string) {
  return {
    messages: Array.from({ length: batch }, (_, i) => ({
      from: 'Bench',
      to: `4915${String(10_000_000 + i).padStart(8, '0')}`,
      text: `Your code is ${salt}-${i}`,
      type: 'sms' as const,
    })),
  };
}

function line(name: string, messages: number, ms: number, extra = ''): void {
  const rate = Math.round((messages / ms) * 1000);
  console.log(`${name.padEnd(44)} ${String(rate).padStart(9)} messages/s  (${messages} in ${ms.toFixed(0)} ms${extra})`);
}

async function engineIngest(storage: Storage, label: string): Promise<void> {
  await storage.migrate();
  const engine = createEngine({ storage, channels: [createSimulator({ latencyMs: 0 })], hasher: createNodeHasher() });
  const account = await engine.accounts.create({ login: 'bench', password: 'bench-password', balance: 1_000_000 });
  await engine.accounts.approveAlphaName(account.id, 'Bench');
  const bodies = Array.from({ length: 12 }, (_, r) => request(BATCH, `r${r}`));
  await engine.messages.send(account.id, bodies[0]!); // warm-up
  await engine.messages.send(account.id, bodies[1]!);
  const times: number[] = [];
  for (const body of bodies.slice(2)) {
    const t = performance.now();
    await engine.messages.send(account.id, body);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const total = times.reduce((a, b) => a + b, 0);
  line(`ingest, engine API (${label})`, BATCH * times.length, total, `; median request ${times[times.length >> 1]!.toFixed(1)} ms`);
  await storage.close();
}

async function httpIngest(): Promise<void> {
  const server = await createServer(
    readConfig({
      PORT: '0',
      SPILLWAY_DB: join(dir, 'http.db'),
      SPILLWAY_LOG_LEVEL: 'silent',
      SPILLWAY_BOOTSTRAP_LOGIN: 'bench',
      SPILLWAY_BOOTSTRAP_PASSWORD: 'bench-password',
      SPILLWAY_BOOTSTRAP_API_KEY: 'sk_bench_0123456789abcdef',
      SPILLWAY_BOOTSTRAP_ALPHA_NAMES: 'Bench',
      SPILLWAY_BOOTSTRAP_BALANCE: '1000000',
      SPILLWAY_SIMULATOR_LATENCY_MS: '0',
      SPILLWAY_RATE_MESSAGING: '1000/1000',
    }),
  );
  const { url } = await server.listen();
  await server.engine.stop(); // measure acceptance only
  const bodies = Array.from({ length: 12 }, (_, r) => JSON.stringify(request(BATCH, `h${r}`)));
  const post = async (body: string) => {
    const res = await fetch(`${url}/bat/messagelist`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-authorization-key': 'sk_bench_0123456789abcdef' },
      body,
    });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  };
  await post(bodies[0]!);
  await post(bodies[1]!);
  const t = performance.now();
  for (const body of bodies.slice(2)) await post(body);
  line('ingest, HTTP POST /bat/messagelist', BATCH * 10, performance.now() - t);
  await server.close();
}

async function endToEnd(total: number): Promise<void> {
  const storage = createSqliteStorage({ filename: join(dir, 'e2e.db') });
  await storage.migrate();
  const engine = createEngine({ storage, channels: [createSimulator({ latencyMs: 0 })], hasher: createNodeHasher(), batchSize: 1000 });
  const account = await engine.accounts.create({ login: 'bench', password: 'bench-password', balance: 1_000_000 });
  await engine.accounts.approveAlphaName(account.id, 'Bench');
  const ids: number[] = [];
  const t = performance.now();
  engine.start();
  for (let r = 0; r < total / BATCH; r++) {
    const res = await engine.messages.send(account.id, request(BATCH, `e${r}`));
    for (const m of res.messages) ids.push(m.messageId);
  }
  // Poll cheaply (one message) so that the measuring does not slow the measured, then check all.
  for (;;) {
    const last = await storage.getMessage(ids.at(-1)!);
    if (last?.status === 'delivered') {
      const all = await storage.getMessages(ids);
      if (all.every((m) => m.status === 'delivered')) break;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  line('end to end, accepted → delivered (simulator)', total, performance.now() - t);
  await engine.stop();
  await storage.close();
}

console.log(`Spillway benchmarks — Node ${process.version}, ${new Date().toISOString()}\n`);
await engineIngest(createSqliteStorage({ filename: join(dir, 'ingest.db') }), 'SQLite file, WAL');
const databaseUrl = process.env['DATABASE_URL'];
if (databaseUrl?.startsWith('postgres')) {
  const schema = `spillway_bench_${Date.now().toString(36)}`;
  const pg = createPostgresStorage({ connectionString: databaseUrl, schema });
  await engineIngest(
    {
      ...pg,
      close: async () => {
        await pg.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await pg.close();
      },
    },
    'PostgreSQL',
  );
}
await httpIngest();
await endToEnd(20_000);
console.log('');
for (const text of await backlog(Number(process.env['SPILLWAY_BENCH_BACKLOG'] ?? 100_000))) console.log(text);
rmSync(dir, { recursive: true, force: true });
