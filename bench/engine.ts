/**
 * Engine and storage benchmarks, without HTTP: `pnpm exec tsx bench/engine.ts [what...]`.
 *
 * - `floor`: JSON.parse of a 5000-message body and a better-sqlite3 insert of the same rows in
 *   one transaction (WAL file, synchronous=NORMAL): the ceiling bulk ingest is measured against.
 * - `ingest`: `engine.messages.send` with 5000-message SMS requests, SQLite file (WAL), workers
 *   stopped; the ratio to `floor` measured in the same run.
 * - `single`: 20,000 one-message sends, 32 callers at a time (group commit of single sends).
 * - `e2e`: 200,000 messages accepted → `delivered` on the simulator at zero latency, the workers
 *   on a thread of their own over the same file (as the reference server runs them).
 * - `scheduled`: 1,000,000 messages scheduled for tomorrow, accepted, then held by a running
 *   engine; prints the process's resident memory (run alone: `tsx bench/engine.ts scheduled`).
 * - `pg`: ingest on PostgreSQL (DATABASE_URL), one process, then two processes on one database;
 *   beside the engine processes' CPU, their PostgreSQL backends' (from /proc, when the server runs
 *   on this machine: the two share its cores).
 *
 * With no argument: floor, ingest, single, e2e (and pg when DATABASE_URL is set). Nothing here is
 * asserted; figures go to BENCHMARKS.md.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createEngine } from '@spillway/core';
import type { Engine, Storage } from '@spillway/core';
import { createSimulator } from '@spillway/channels';
import { createNodeHasher } from '@spillway/http';
import { createSqliteStorage } from '@spillway/sqlite';
import { createPostgresStorage } from '@spillway/postgres';
import { request } from './engine-requests.ts';
import { cpuMicros } from './proc-cpu.ts';
import { ROUNDS, medianBy, roundsRatioText } from './rounds.ts';

const BATCH = 5000;
const dir = mkdtempSync(join(tmpdir(), 'spillway-bench-engine-'));

/** CPU time of this process (all its threads) since the last mark, µs. */
let cpuMark = process.cpuUsage();
function cpuSince(): number {
  const used = process.cpuUsage(cpuMark);
  cpuMark = process.cpuUsage();
  return used.user + used.system;
}

/**
 * Prints a figure. The machine may be shared: the CPU time a message took (this process, all
 * threads, since the last figure's start) is printed beside the wall-clock rate, unless `extra`
 * gives the CPU of the processes that did the work (`ownCpu` false: this one only waited for them).
 */
function line(name: string, messages: number, ms: number, extra = '', ownCpu = true): number {
  const rate = Math.round((messages / ms) * 1000);
  const cpu = (cpuSince() / messages).toFixed(1);
  const own = ownCpu ? `; CPU ${cpu} µs/message` : '';
  console.log(`${name.padEnd(48)} ${String(rate).padStart(9)} messages/s  (${messages} in ${ms.toFixed(0)} ms${extra}${own})`);
  return rate;
}

async function setup(
  storage: Storage,
  options: { worker?: boolean; accountId?: number } = {},
): Promise<{ engine: Engine; accountId: number }> {
  await storage.migrate();
  const engine = createEngine({
    storage,
    channels: [createSimulator({ latencyMs: 0 })],
    hasher: createNodeHasher(),
    batchSize: 1000,
    worker: options.worker ?? true,
  });
  if (options.accountId !== undefined) return { engine, accountId: options.accountId };
  const account = await engine.accounts.create({ login: `bench-${Math.random()}`, password: 'bench-password', balance: 100_000_000 });
  await engine.accounts.approveAlphaName(account.id, 'Bench');
  return { engine, accountId: account.id };
}

/** JSON.parse of each body, then one transaction inserting its rows with one prepared statement. */
function floor(): number {
  // The storage's own handle: the same better-sqlite3 build and pragmas (WAL, synchronous=NORMAL).
  const storage = createSqliteStorage({ filename: join(dir, 'floor.db') });
  const db = storage.db;
  db.exec(
    `CREATE TABLE rows (id INTEGER PRIMARY KEY, sender TEXT NOT NULL, recipient TEXT NOT NULL, text TEXT NOT NULL, type TEXT NOT NULL)`,
  );
  const insert = db.prepare<[string, string, string, string]>(`INSERT INTO rows (sender, recipient, text, type) VALUES (?, ?, ?, ?)`);
  type Item = { from: string; to: string; text: string; type: string };
  const run = db.transaction((items: Item[]) => {
    for (const m of items) insert.run(m.from, m.to, m.text, m.type);
  });
  const bodies = Array.from({ length: 22 }, (_, r) => JSON.stringify(request(BATCH, `f${r}`)));
  for (const body of bodies.slice(0, 2)) run.immediate((JSON.parse(body) as { messages: Item[] }).messages);
  cpuSince();
  const t = performance.now();
  for (const body of bodies.slice(2)) run.immediate((JSON.parse(body) as { messages: Item[] }).messages);
  const rate = line('floor: JSON.parse + insert, one transaction', BATCH * 20, performance.now() - t);
  void storage.close();
  return rate;
}

async function ingest(storage: Storage, label: string, requests = 20): Promise<number> {
  const { engine, accountId } = await setup(storage);
  const bodies = Array.from({ length: requests + 2 }, (_, r) => request(BATCH, `r${r}`));
  await engine.messages.send(accountId, bodies[0]!); // warm-up
  await engine.messages.send(accountId, bodies[1]!);
  const times: number[] = [];
  cpuSince();
  for (const body of bodies.slice(2)) {
    const t = performance.now();
    await engine.messages.send(accountId, body);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const total = times.reduce((a, b) => a + b, 0);
  const rate = line(
    `ingest, engine API (${label})`,
    BATCH * times.length,
    total,
    `; median request ${times[times.length >> 1]!.toFixed(1)} ms`,
  );
  await storage.close();
  return rate;
}

async function single(total = 20_000, concurrency = 32): Promise<void> {
  const storage = createSqliteStorage({ filename: join(dir, `single-${Date.now()}.db`) });
  const { engine, accountId } = await setup(storage);
  let next = 0;
  const caller = async () => {
    while (next < total) {
      const i = next++;
      await engine.messages.send(accountId, {
        messages: [{ from: 'Bench', to: `4915${10_000_000 + i}`, text: `code ${i}`, type: 'sms' as const }],
      });
    }
  };
  await Promise.all(Array.from({ length: 100 }, (_, i) => engine.messages.send(accountId, request(1, `w${i}`))));
  cpuSince();
  const t = performance.now();
  await Promise.all(Array.from({ length: concurrency }, caller));
  line(`single sends, engine API, ${concurrency} callers`, total, performance.now() - t);
  await storage.close();
}

/** The workers on a thread of their own over the same file, as the reference server runs them. */
async function startWorkerThread(filename: string): Promise<{ wake(): void; stop(): Promise<void> }> {
  const entry = new URL('./engine-worker-thread.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); })`;
  const thread = new Worker(code, { eval: true, workerData: { filename } });
  await new Promise<void>((resolve, reject) => {
    thread.once('message', (m) => (m === 'ready' ? resolve() : reject(new Error(String(m)))));
    thread.once('error', reject);
  });
  return {
    wake: () => thread.postMessage('wake'),
    async stop() {
      const stopped = new Promise<void>((resolve) => thread.on('message', (m) => m === 'stopped' && resolve()));
      thread.postMessage('stop');
      await stopped;
      await thread.terminate();
    },
  };
}

async function endToEnd(total = 200_000, threaded = true): Promise<void> {
  const filename = join(dir, `e2e-${Date.now()}.db`);
  const storage = createSqliteStorage({ filename });
  await storage.migrate();
  const thread = threaded ? await startWorkerThread(filename) : null;
  const engine = createEngine({
    storage,
    channels: [createSimulator({ latencyMs: 0 })],
    hasher: createNodeHasher(),
    batchSize: 1000,
    worker: !threaded,
    ...(thread ? { onWork: () => thread.wake() } : {}),
  });
  const account = await engine.accounts.create({ login: 'bench-e2e', password: 'bench-password', balance: 100_000_000 });
  await engine.accounts.approveAlphaName(account.id, 'Bench');
  const ids: number[] = [];
  cpuSince();
  const t = performance.now();
  engine.start();
  for (let r = 0; r < total / BATCH; r++) {
    const res = await engine.messages.send(account.id, request(BATCH, `e${r}`));
    for (const m of res.messages) ids.push(m.messageId);
  }
  const accepted = performance.now() - t;
  const countDelivered = storage.db.prepare<[number, number], { n: number }>(
    `SELECT COUNT(*) AS n FROM messages WHERE id BETWEEN ? AND ? AND status = 'delivered'`,
  );
  const [lo, hi] = [Math.min(...ids.slice(0, 10)), ids.at(-1)!];
  for (;;) {
    const last = await storage.getMessage(hi);
    if (last?.status === 'delivered' && countDelivered.get(lo, hi)!.n === total) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  line(
    `end to end → delivered (${threaded ? 'workers on a thread' : 'workers in process'})`,
    total,
    performance.now() - t,
    `; all accepted after ${accepted.toFixed(0)} ms`,
  );
  await engine.stop();
  await thread?.stop();
  await storage.close();
}

async function scheduled(total = 1_000_000): Promise<void> {
  const storage = createSqliteStorage({ filename: join(dir, `scheduled-${Date.now()}.db`) });
  const { engine, accountId } = await setup(storage);
  engine.start();
  const scheduledAt = new Date(Date.now() + 86_400_000).toISOString();
  const t = performance.now();
  for (let r = 0; r < total / BATCH; r++) await engine.messages.send(accountId, request(BATCH, `s${r}`, { scheduledAt }));
  const ms = performance.now() - t;
  // Let the workers run a while over the held messages, then measure.
  await new Promise((r) => setTimeout(r, 3000));
  global.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  line('scheduled messages accepted', total, ms);
  console.log(
    `${'scheduled messages held: resident memory'.padEnd(48)} ${(rss / 2 ** 20).toFixed(0).padStart(9)} MiB (heap ${(heapUsed / 2 ** 20).toFixed(0)} MiB)`,
  );
  await engine.stop();
  await storage.close();
}

function pgStorage(url: string, schema: string) {
  const pg = createPostgresStorage({ connectionString: url, schema });
  return pg;
}

/**
 * CPU time (µs) the PostgreSQL backends of this process's connections have used, read from
 * /proc: the server must run on this machine (null otherwise). The connections are found by
 * their application_name.
 */
async function backendsCpu(storage: ReturnType<typeof pgStorage>, name: string): Promise<number | null> {
  const found = await storage.pool.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [name]);
  const micros = cpuMicros((found.rows as { pid: number }[]).map((r) => r.pid));
  return Number.isNaN(micros) ? null : micros;
}

/**
 * One ingest process on PostgreSQL (forked, so two can run side by side): prints msg/s. It sends
 * for an account of its own, or for `sharedAccount` (one customer's traffic through two processes).
 */
async function pgChild(url: string, schema: string, requests: number, sharedAccount?: number): Promise<void> {
  const name = `spillway-bench-${process.pid}`;
  const storage = pgStorage(`${url}${url.includes('?') ? '&' : '?'}application_name=${name}`, schema);
  const { engine, accountId } = await setup(storage, {
    worker: false,
    ...(sharedAccount !== undefined ? { accountId: sharedAccount } : {}),
  });
  const bodies = Array.from({ length: requests }, (_, r) => request(BATCH, `p${process.pid}-${r}`));
  await engine.messages.send(accountId, request(BATCH, 'warm'));
  process.send?.('ready');
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const pgBefore = await backendsCpu(storage, name);
  const cpu = process.cpuUsage();
  const t = performance.now();
  for (const body of bodies) await engine.messages.send(accountId, body);
  const used = process.cpuUsage(cpu);
  const ms = performance.now() - t;
  const pgAfter = await backendsCpu(storage, name);
  const pgCpu = pgBefore === null || pgAfter === null ? null : pgAfter - pgBefore;
  process.send?.({ ms, messages: BATCH * requests, cpu: used.user + used.system, pgCpu });
  await storage.close();
}

async function pg(url: string): Promise<void> {
  const schema = `spillway_bench_${Date.now().toString(36)}`;
  const admin = pgStorage(url, schema);
  await admin.migrate();
  // One customer's account for the processes that share one (made here, so that they need not race to create it).
  const shared = await setup(admin, { worker: false });
  const run = async (processes: number, requests: number, round: number, sharedAccount = false) => {
    const children = Array.from({ length: processes }, () =>
      fork(
        new URL(import.meta.url).pathname,
        ['pg-child', schema, String(requests), ...(sharedAccount ? [String(shared.accountId)] : [])],
        {
          execArgv: ['--conditions=@spillway/source', '--import', 'tsx'],
        },
      ),
    );
    // Listened for from the start: a child that is done may exit before its sibling reports.
    const exited = children.map((c) => new Promise((r) => c.once('exit', r)));
    await Promise.all(children.map((c) => new Promise((r) => c.once('message', r))));
    const t = performance.now();
    const done = children.map(
      (c) => new Promise<{ ms: number; messages: number; cpu: number; pgCpu: number | null }>((r) => c.once('message', r as never)),
    );
    for (const c of children) c.send('go');
    const results = await Promise.all(done);
    const wall = performance.now() - t;
    await Promise.all(exited);
    const messages = results.reduce((a, r) => a + r.messages, 0);
    const cpu = results.reduce((a, r) => a + r.cpu, 0);
    // The backends' CPU when the server is on this machine (its background processes not counted).
    const pgCpu = results.every((r) => r.pgCpu !== null) ? results.reduce((a, r) => a + r.pgCpu!, 0) : null;
    return line(
      `round ${round}: ingest, PostgreSQL, ${processes} process${processes > 1 ? 'es' : ''}${sharedAccount ? ', one account' : ''}`,
      messages,
      wall,
      `; engine processes' CPU ${(cpu / messages).toFixed(1)} µs/message, PostgreSQL backends' ${
        pgCpu === null ? 'not measured (server not on this machine)' : `${(pgCpu / messages).toFixed(1)} µs/message`
      }`,
      false,
    );
  };
  // Rounds of one process, two, and two for one account: the figures are the medians of the rounds'.
  const ones: number[] = [];
  const ratios: number[] = [];
  const sharedRatios: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const one = await run(1, 10, r);
    const two = await run(2, 10, r);
    const twoShared = await run(2, 10, r, true);
    ones.push(one);
    ratios.push(two / one);
    sharedRatios.push(twoShared / one);
  }
  console.log(
    `${`ingest, engine API (PostgreSQL), median of ${ROUNDS}`.padEnd(48)} ${String(medianBy(ones, (x) => x)).padStart(9)} messages/s`,
  );
  console.log(`${'two processes / one'.padEnd(48)} ${roundsRatioText(ratios)}`);
  console.log(`${'two processes, one account / one'.padEnd(48)} ${roundsRatioText(sharedRatios)}`);
  await admin.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.close();
}

const [what, ...args] = process.argv.slice(2);
if (what === 'pg-child') {
  await pgChild(process.env['DATABASE_URL']!, args[0]!, Number(args[1]), args[2] === undefined ? undefined : Number(args[2]));
} else {
  const all = what === undefined;
  const wants = (name: string) => all || process.argv.slice(2).includes(name);
  console.log(`Spillway engine benchmarks — Node ${process.version}, ${new Date().toISOString()}\n`);
  let floorRate = 0;
  if (wants('floor') || wants('ingest')) floorRate = floor();
  if (wants('ingest')) {
    const rate = await ingest(createSqliteStorage({ filename: join(dir, `ingest-${Date.now()}.db`) }), 'SQLite file, WAL');
    console.log(`${'ingest / floor'.padEnd(48)} ${(rate / floorRate).toFixed(2).padStart(9)}`);
  }
  if (wants('single')) await single();
  if (wants('e2e')) await endToEnd(Number(process.env['SPILLWAY_BENCH_E2E'] ?? 200_000));
  if (wants('e2e-inprocess')) await endToEnd(Number(process.env['SPILLWAY_BENCH_E2E'] ?? 200_000), false);
  if (what === 'scheduled') await scheduled(Number(process.env['SPILLWAY_BENCH_SCHEDULED'] ?? 1_000_000));
  const url = process.env['DATABASE_URL'];
  if (wants('pg') && url?.startsWith('postgres')) await pg(url);
  rmSync(dir, { recursive: true, force: true });
}
