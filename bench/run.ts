/**
 * Spillway benchmarks: `pnpm bench`. Prints ONE table: each figure of Spillway, the peer or
 * ceiling measured beside it in the same run on the same machine, and the ratio, with issue 13's
 * target. Every Spillway figure is taken as users run it: the reference server (`spillway serve`,
 * built JavaScript as `pnpm start` runs it, default role, so the workers run on their own thread), a durable SQLite file (WAL), the
 * simulator at zero latency, rate limits raised, through its HTTP API on a real port.
 *
 * - single-message sends (`POST /bat/messagelist` with 1 message, `wrk -t1 -c32`) against
 *   Kannel 1.4.5's `sendsms` (smsbox -> bearerbox with its spool -> fakesmsc; config in
 *   `bench/kannel/kannel.conf`; installed from Debian's packages when missing) and against a bare
 *   `node:http` server answering a tiny JSON body (`bench/bare-node.mjs`, started here);
 * - status reads (`GET /bat/message/{id}`) and `GET /health` against that bare server;
 * - bulk ingest of 5000-message requests (one after another, then two in flight) against the
 *   floor: JSON.parse of the same bodies and a better-sqlite3 insert of their rows in one
 *   transaction, in this process;
 * - end to end: 200,000 messages accepted -> `delivered`, in rounds on fresh servers, against the 50,000 messages/s target;
 * - the engine's own figures of `bench/engine.ts` (1M scheduled messages' memory, PostgreSQL)
 *   when that script exists (`SPILLWAY_BENCH_ENGINE=0` skips them);
 * - the backlog figure of `bench/backlog.ts` (responsiveness while 100,000 messages drain).
 *
 * Load generator: wrk (Debian's package, installed when missing): C, one thread, so that the
 * measuring costs far less CPU than the measured on a small machine (autocannon, in Node, would
 * take a core of its own to generate the same load). Nothing here is asserted; figures go to
 * BENCHMARKS.md. Environment: SPILLWAY_BENCH_SECONDS (wrk duration, default 5),
 * SPILLWAY_BENCH_E2E (default 200000), SPILLWAY_BENCH_BACKLOG (default 100000, 0 skips),
 * SPILLWAY_BENCH_ROUNDS (rounds of the wrk loads, default 3),
 * SPILLWAY_BENCH_SERVER_ROOT (another checkout whose server to measure, for before/after figures).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { createSqliteStorage } from '@spillway/sqlite';
import { backlog } from './backlog.ts';
import { benchServerEnv, freePort, freePorts, serverArgs } from './bench-server.ts';
import { cpuMicros } from './proc-cpu.ts';
import { ROUNDS, medianBy, roundsRatioText } from './rounds.ts';

const root = resolve(import.meta.dirname, '..');
// The checkout whose server is measured (another worktree, for before/after figures); this one by default.
const serverRoot = resolve(process.env['SPILLWAY_BENCH_SERVER_ROOT'] ?? root);
const dir = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
const SECONDS = Number(process.env['SPILLWAY_BENCH_SECONDS'] ?? 5);
const E2E = Number(process.env['SPILLWAY_BENCH_E2E'] ?? 200_000);
const BACKLOG = Number(process.env['SPILLWAY_BENCH_BACKLOG'] ?? 100_000);
const BATCH = 5000;
const KEY = 'sk_bench_0123456789abcdef';
const children: ChildProcess[] = [];
// The engine scripts run from their TypeScript sources through tsx (the condition picks the packages'
// sources); the reference server runs built, as `pnpm start` runs it (serverArgs).
const FROM_SOURCE = ['--conditions=@spillway/source', '--import', 'tsx'];

// ---------------------------------------------------------------------------------------------
// Processes: free ports, the reference server, the bare node:http ceiling, Kannel, wrk.

async function until(what: string, ok: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start within ${ms} ms`);
}

function start(bin: string, args: string[], options: Parameters<typeof spawn>[2] = {}): ChildProcess {
  const child = spawn(bin, args, { stdio: 'ignore', ...options });
  children.push(child);
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const exited = new Promise((r) => child.once('exit', r));
  if ((await Promise.race([exited, new Promise((r) => setTimeout(() => r('late'), 10_000))])) === 'late') child.kill('SIGKILL');
}

interface Spillway {
  base: string;
  db: string;
  child: ChildProcess;
}

/** `spillway serve` as `pnpm start` runs it, on a new SQLite file. */
async function startSpillway(name: string): Promise<Spillway> {
  const port = await freePort();
  const db = join(dir, `${name}.db`);
  const child = start(process.execPath, serverArgs(serverRoot), {
    cwd: serverRoot,
    env: benchServerEnv({ db, port, key: KEY, balance: 100_000_000 }),
  });
  const base = `http://127.0.0.1:${port}`;
  await until('the reference server', async () => (await fetch(`${base}/health`)).ok);
  return { base, db, child };
}

async function startBareNode(): Promise<{ base: string; child: ChildProcess }> {
  const child = start(process.execPath, [join(root, 'bench/bare-node.mjs'), '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise<number>((resolvePort, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolvePort(Number(d.toString().trim())));
    child.once('exit', () => reject(new Error('bench/bare-node.mjs exited')));
  });
  return { base: `http://127.0.0.1:${port}`, child };
}

/** Installs Debian packages when a binary is missing (root only); false when still missing. */
function ensure(binaries: string[], packages: string[]): boolean {
  if (binaries.every((b) => existsSync(b))) return true;
  if (process.getuid?.() !== 0) return false;
  console.error(`installing ${packages.join(', ')} from Debian's packages ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let res = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: 'ignore', env });
  if (res.status !== 0) {
    spawnSync('apt-get', ['update'], { stdio: 'ignore', env });
    res = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: 'ignore', env });
  }
  return binaries.every((b) => existsSync(b));
}

const KANNEL = ['/usr/sbin/bearerbox', '/usr/sbin/smsbox', '/usr/lib/kannel/test/fakesmsc'] as const;

/** Kannel from `bench/kannel/kannel.conf` on free ports: the sendsms URL with its credentials. */
async function startKannel(): Promise<{ sendsms: string; pids: Array<number | undefined>; stop(): Promise<void> }> {
  const home = join(dir, 'kannel');
  mkdirSync(join(home, 'spool'), { recursive: true });
  const [admin, smsbox, fake, sendsms] = (await freePorts(4)) as [number, number, number, number];
  const conf = readFileSync(join(root, 'bench/kannel/kannel.conf'), 'utf8')
    .replaceAll('{ADMIN_PORT}', String(admin))
    .replaceAll('{SMSBOX_PORT}', String(smsbox))
    .replaceAll('{FAKE_PORT}', String(fake))
    .replaceAll('{SENDSMS_PORT}', String(sendsms))
    .replaceAll('{DIR}', home)
    .replaceAll('{PASSWORD}', 'bench-kannel');
  const file = join(home, 'kannel.conf');
  writeFileSync(file, conf);
  const status = async () => (await fetch(`http://127.0.0.1:${admin}/status.txt?password=bench`)).text();
  const boxes = [start(KANNEL[0], [file])];
  await until('bearerbox', async () => (await status()).includes('Kannel bearerbox'));
  boxes.push(start(KANNEL[1], [file]));
  // fakesmsc prints a line per message it takes: its output goes nowhere (-m 0: it sends no MO).
  boxes.push(start(KANNEL[2], ['-H', '127.0.0.1', '-r', String(fake), '-i', '0.01', '-m', '0', '1 2 text unused']));
  await until('smsbox and fakesmsc', async () => {
    const s = await status();
    return /fake\[fake\].*\(online/i.test(s) && /smsbox:\(none\)/i.test(s);
  });
  return {
    sendsms: `http://127.0.0.1:${sendsms}/cgi-bin/sendsms?username=bench&password=bench-kannel&from=Bench`,
    pids: boxes.map((b) => b.pid),
    stop: async () => {
      for (const child of boxes.reverse()) await stop(child);
    },
  };
}

/** The Lua of wrk's requests: `body` and `path` are Lua expressions over the request counter `n`. */
function luaScript(name: string, options: { method?: string; headers?: Record<string, string>; path?: string; body?: string }): string {
  const lines = [`wrk.method = "${options.method ?? 'GET'}"`];
  for (const [k, v] of Object.entries(options.headers ?? {})) lines.push(`wrk.headers["${k}"] = "${v}"`);
  lines.push('local n = 0', 'request = function()', '  n = n + 1');
  lines.push(`  return wrk.format(nil, ${options.path ?? 'nil'}, nil, ${options.body ?? 'nil'})`, 'end');
  const file = join(dir, `${name}.lua`);
  writeFileSync(file, lines.join('\n'));
  return file;
}

interface WrkResult {
  rps: number;
  p99Ms: number;
  bad: number;
  /** CPU time of the serving processes per request, µs. */
  cpuPerRequestUs: number;
}

/**
 * `wrk -t1 -c32` for SECONDS after a one-second warm-up; counts errors and non-2xx answers, and the
 * CPU time the serving processes (`pids`) spent per request: on a shared machine that moves far
 * less than the rate does.
 */
function wrk(url: string, script: string | undefined, pids: readonly (number | undefined)[], connections = 32): WrkResult {
  const args = ['-t1', `-c${connections}`, '--latency', ...(script ? ['-s', script] : []), url];
  execFileSync('wrk', ['-t1', `-c${connections}`, '-d1s', ...(script ? ['-s', script] : []), url], { stdio: 'ignore' });
  const cpuBefore = cpuMicros(pids);
  const out = execFileSync('wrk', [`-d${SECONDS}s`, ...args], { encoding: 'utf8' });
  const cpu = cpuMicros(pids) - cpuBefore;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99Ms = p99 ? Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1) : NaN;
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  return { rps, p99Ms, bad: non2xx + errors, cpuPerRequestUs: requests > 0 ? cpu / requests : NaN };
}

// ---------------------------------------------------------------------------------------------
// The measures.

function request(batch: number, salt: string) {
  return {
    messages: Array.from({ length: batch }, (_, i) => ({
      from: 'Bench',
      to: `4915${String(10_000_000 + i).padStart(8, '0')}`,
      text: `Your code is ${salt}-${i}`,
      type: 'sms',
    })),
  };
}

async function post(base: string, body: string): Promise<{ messages: Array<{ messageId: number }> }> {
  const res = await fetch(`${base}/bat/messagelist`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-authorization-key': KEY },
    body,
  });
  if (res.status !== 200) throw new Error(`POST /bat/messagelist answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { messages: Array<{ messageId: number }> };
}

/** Bulk ingest: 2 warm-up requests, then 10 timed ones with `inFlight` at a time; messages/s. */
async function bulk(base: string, inFlight: number, salt: string): Promise<number> {
  const bodies = Array.from({ length: 12 }, (_, r) => JSON.stringify(request(BATCH, `${salt}${r}`)));
  await post(base, bodies[0]!);
  await post(base, bodies[1]!);
  const queue = bodies.slice(2);
  const t = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let body = queue.shift(); body; body = queue.shift()) await post(base, body);
    }),
  );
  return (BATCH * 10 * 1000) / (performance.now() - t);
}

let floors = 0;
/** The floor: JSON.parse of each body and one transaction inserting its rows (WAL, synchronous=NORMAL). */
function floor(): number {
  const storage = createSqliteStorage({ filename: join(dir, `floor-${++floors}.db`) });
  const db = storage.db;
  db.exec(
    'CREATE TABLE rows (id INTEGER PRIMARY KEY, sender TEXT NOT NULL, recipient TEXT NOT NULL, text TEXT NOT NULL, type TEXT NOT NULL)',
  );
  const insert = db.prepare<[string, string, string, string]>('INSERT INTO rows (sender, recipient, text, type) VALUES (?, ?, ?, ?)');
  type Item = { from: string; to: string; text: string; type: string };
  const run = db.transaction((items: Item[]) => {
    for (const m of items) insert.run(m.from, m.to, m.text, m.type);
  });
  const bodies = Array.from({ length: 12 }, (_, r) => JSON.stringify(request(BATCH, `f${r}`)));
  for (const body of bodies.slice(0, 2)) run.immediate((JSON.parse(body) as { messages: Item[] }).messages);
  const t = performance.now();
  for (const body of bodies.slice(2)) run.immediate((JSON.parse(body) as { messages: Item[] }).messages);
  const rate = (BATCH * 10 * 1000) / (performance.now() - t);
  // The storage's close: its status reads' second connection too.
  void storage.close();
  return rate;
}

/** End to end on a fresh server: `total` messages in 5000-message requests, timed until every one is `delivered`. */
async function endToEnd(total: number): Promise<number> {
  const server = await startSpillway('e2e');
  try {
    const bodies = Array.from({ length: Math.ceil(total / BATCH) }, (_, r) =>
      JSON.stringify(request(Math.min(BATCH, total - r * BATCH), `e${r}`)),
    );
    let first = 0;
    let last = 0;
    const t = performance.now();
    for (const body of bodies) {
      const { messages } = await post(server.base, body);
      first ||= messages[0]!.messageId;
      last = messages.at(-1)!.messageId;
    }
    // Cheap polls of the last message over HTTP, then a count over a read-only handle of the file,
    // every 5 ms: the end is seen within 5 ms of the last delivery (50 ms polls added up to 1 %).
    const statusOf = async (id: number) =>
      (
        (await (await fetch(`${server.base}/bat/message/${id}`, { headers: { 'x-authorization-key': KEY } })).json()) as {
          deliverystatus: string;
        }
      ).deliverystatus;
    const deadline = Date.now() + 600_000;
    const wait = async () => {
      if (Date.now() > deadline) throw new Error('not every message was delivered within 10 minutes');
      await new Promise((r) => setTimeout(r, 5));
    };
    while ((await statusOf(last)) !== 'delivered') await wait();
    // The storage package's own better-sqlite3 (the root has none of its own).
    const Database = createRequire(join(root, 'packages/sqlite/package.json'))('better-sqlite3') as new (
      file: string,
      options: { readonly: boolean },
    ) => { prepare(sql: string): { get(...args: unknown[]): unknown }; close(): void };
    const db = new Database(server.db, { readonly: true });
    const count = db.prepare(`SELECT count(*) AS n FROM messages WHERE id BETWEEN ? AND ? AND status = 'delivered'`);
    try {
      while ((count.get(first, last) as { n: number }).n < total) await wait();
    } finally {
      db.close();
    }
    return (total * 1000) / (performance.now() - t);
  } finally {
    await stop(server.child);
  }
}

/** Runs `bench/engine.ts <what>` when speed work on the engine has added it; its output lines. */
function engineScript(what: string, env: NodeJS.ProcessEnv = {}): string[] | null {
  if (process.env['SPILLWAY_BENCH_ENGINE'] === '0' || !existsSync(join(root, 'bench/engine.ts'))) return null;
  const res = spawnSync(process.execPath, [...FROM_SOURCE, join(root, 'bench/engine.ts'), what], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 600_000,
  });
  if (res.status !== 0)
    return [`bench/engine.ts ${what} failed: ${(res.stderr || res.stdout || '').trim().split('\n').slice(-3).join(' / ')}`];
  return res.stdout.split('\n').filter((l) => l.trim() && !l.startsWith('Spillway engine benchmarks'));
}

// ---------------------------------------------------------------------------------------------
// The table.

interface Row {
  what: string;
  spillway: string;
  peer: string;
  ratio: string;
  target: string;
}
const rows: Row[] = [];
const notes: string[] = [];
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}` : '—');
function row(what: string, spillway: string, peer: string, r: string, target: string): void {
  rows.push({ what, spillway, peer, ratio: r, target });
  console.error(`  ${what}: ${spillway} | ${peer} | ${r}`);
}
const cpuText = (r: WrkResult) => (Number.isFinite(r.cpuPerRequestUs) ? `${Math.round(r.cpuPerRequestUs)} µs CPU/req` : 'CPU ?');
/** The run of median rate among rounds (its CPU and p99 come with it). */
const medianRun = (runs: WrkResult[]): WrkResult => medianBy(runs, (r) => r.rps);
/** The median of the rounds' ratios `a[r] / b[r]`, each round's after it. */
const ratioOfRounds = (a: WrkResult[], b: WrkResult[]): string => roundsRatioText(a.map((x, r) => x.rps / (b[r]?.rps ?? NaN)));
/**
 * The share of the machine's CPU time the hypervisor gave to others since `before` (the `steal`
 * column of /proc/stat); without `before`, the counters to pass later. Linux only (NaN elsewhere).
 */
function cpuStolen(): number[];
function cpuStolen(before: number[]): number;
function cpuStolen(before?: number[]): number[] | number {
  let now: number[] = [];
  try {
    now = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  } catch {
    return before ? NaN : [];
  }
  if (!before) return now;
  const total = now.reduce((a, b) => a + b, 0) - before.reduce((a, b) => a + b, 0);
  return total > 0 ? ((now[7] ?? 0) - (before[7] ?? 0)) / total : NaN;
}
function checked(name: string, result: WrkResult): WrkResult {
  const note = `${name}: errors or non-2xx answers during a run (its figure is not valid)`;
  if (result.bad > 0 && !notes.includes(note)) notes.push(note);
  return result;
}

const date = new Date().toISOString();
if (serverRoot !== root) console.log(`Server measured: the checkout at ${serverRoot}`);
console.log(
  `Spillway benchmarks — Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${date}\n`,
);
try {
  const haveWrk = ensure(['/usr/bin/wrk'], ['wrk']);
  if (!haveWrk) throw new Error('wrk is missing (apt-get install -y wrk)');
  const haveKannel = ensure([...KANNEL], ['kannel', 'kannel-extras']);

  console.error('starting the reference server, the bare node:http server and Kannel ...');
  const spillway = await startSpillway('http');
  const bare = await startBareNode();
  const kannel = haveKannel
    ? await startKannel().catch((error: Error) => {
        notes.push(`Kannel did not start (${error.message}): no Kannel figure`);
        return null;
      })
    : null;
  if (!kannel) notes.push('Kannel is not installed and could not be installed (apt-get install -y kannel kannel-extras): no Kannel figure');

  const sendBody = `'{"messages":[{"from":"Bench","to":"4915' .. string.format("%08d", 10000000 + n) .. '","text":"Your code is ' .. n .. '","type":"sms"}]}'`;
  const json = { 'Content-Type': 'application/json', 'X-Authorization-Key': KEY };
  const sendLua = luaScript('send', { method: 'POST', headers: json, body: sendBody });
  const first = (await post(spillway.base, JSON.stringify(request(1, 'status')))).messages[0]!.messageId;

  const kannelLua = kannel
    ? luaScript('kannel', {
        path: `"${new URL(kannel.sendsms).pathname}${new URL(kannel.sendsms).search}&to=4915" .. string.format("%08d", 10000000 + n) .. "&text=Your+code+is+" .. n`,
      })
    : '';
  const statusLua = luaScript('status', { headers: { 'X-Authorization-Key': KEY } });

  // Rounds: each one runs every server under each load, one after another, so that a slow minute of
  // a shared machine falls on both sides of a ratio. Each ratio is the median of its rounds'.
  const runs = { sends: [] as WrkResult[], kannel: [] as WrkResult[], bareSends: [] as WrkResult[] };
  const reads = { status: [] as WrkResult[], bareGet: [] as WrkResult[], health: [] as WrkResult[] };
  const stolenBefore = cpuStolen();
  for (let r = 0; r < ROUNDS; r++) {
    console.error(`round ${r + 1} of ${ROUNDS} ...`);
    runs.sends.push(checked('single sends', wrk(`${spillway.base}/bat/messagelist`, sendLua, [spillway.child.pid])));
    if (kannel) runs.kannel.push(checked('Kannel sendsms', wrk(kannel.sendsms, kannelLua, kannel.pids)));
    runs.bareSends.push(checked('bare node POST', wrk(`${bare.base}/bat/messagelist`, sendLua, [bare.child.pid])));
    reads.status.push(checked('status reads', wrk(`${spillway.base}/bat/message/${first}`, statusLua, [spillway.child.pid])));
    reads.bareGet.push(checked('bare node GET', wrk(`${bare.base}/`, undefined, [bare.child.pid])));
    reads.health.push(checked('health', wrk(`${spillway.base}/health`, undefined, [spillway.child.pid])));
  }
  const stolen = cpuStolen(stolenBefore);
  if (stolen >= 0.02) {
    notes.push(
      `the hypervisor took ${(stolen * 100).toFixed(0)} % of the machine's CPU time during the rounds (steal): rates move between runs, compare the ratios`,
    );
  }
  const sends = medianRun(runs.sends);
  const kannelSends = kannel ? medianRun(runs.kannel) : null;
  const bareSends = medianRun(runs.bareSends);
  row(
    'single-message sends, `POST /bat/messagelist` (1 message, 32 connections)',
    `${fmt(sends.rps)} req/s, ${cpuText(sends)}`,
    kannelSends ? `Kannel \`sendsms\` ${fmt(kannelSends.rps)} req/s, ${cpuText(kannelSends)}` : 'Kannel: not run',
    kannelSends ? ratioOfRounds(runs.sends, runs.kannel) : '—',
    '≥ 1.5',
  );
  row(
    '  the same',
    `p99 ${sends.p99Ms.toFixed(1)} ms`,
    `bare \`node:http\` ${fmt(bareSends.rps)} req/s, ${cpuText(bareSends)}`,
    ratioOfRounds(runs.sends, runs.bareSends),
    '≥ 0.5',
  );

  const status = medianRun(reads.status);
  const bareGet = medianRun(reads.bareGet);
  const health = medianRun(reads.health);
  row(
    'status reads, `GET /bat/message/{id}` (32 connections)',
    `${fmt(status.rps)} req/s, ${cpuText(status)}`,
    `bare \`node:http\` ${fmt(bareGet.rps)} req/s, ${cpuText(bareGet)}`,
    ratioOfRounds(reads.status, reads.bareGet),
    '≥ 0.6',
  );
  row(
    '`GET /health` (no authentication, no storage)',
    `${fmt(health.rps)} req/s, ${cpuText(health)}`,
    `bare \`node:http\` ${fmt(bareGet.rps)} req/s, ${cpuText(bareGet)}`,
    ratioOfRounds(reads.health, reads.bareGet),
    '',
  );
  await stop(bare.child);
  await kannel?.stop();

  // In rounds too: ten requests take about half a second, and one slow half-second of a shared
  // machine moved a single measurement by a fifth. The floor is measured in each round beside them.
  console.error('bulk ingest ...');
  const bulkRounds: Array<{ floor: number; one: number; two: number }> = [];
  for (let r = 0; r < ROUNDS; r++)
    bulkRounds.push({ floor: floor(), one: await bulk(spillway.base, 1, `b${r}`), two: await bulk(spillway.base, 2, `c${r}`) });
  const floorRate = medianBy(bulkRounds, (b) => b.floor).floor;
  const ratesText = (rates: number[]) => (rates.length > 1 ? ` (${rates.map(fmt).join(', ')})` : '');
  for (const [what, key, target] of [
    ['bulk ingest, 5000-message requests one after another', 'one', '≥ 0.5 and ≥ 150,000 msg/s'],
    ['bulk ingest, 2 requests in flight', 'two', ''],
  ] as const) {
    const rates = bulkRounds.map((b) => b[key]);
    row(
      what,
      `${fmt(medianBy(rates, (x) => x))} msg/s${ratesText(rates)}`,
      `floor ${fmt(floorRate)} msg/s`,
      roundsRatioText(bulkRounds.map((b) => b[key] / b.floor)),
      target,
    );
  }
  await stop(spillway.child);

  // In rounds, each on a fresh server (about five seconds each): one run moved by a tenth or more
  // from one minute to the next on a shared machine.
  console.error(`end to end, ${E2E} messages ...`);
  const e2eRounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    e2eRounds.push(
      await endToEnd(E2E).catch((error: Error) => {
        notes.push(`end to end failed: ${error.message}`);
        return NaN;
      }),
    );
  }
  const e2eDone = e2eRounds.filter(Number.isFinite);
  const e2e = e2eDone.length > 0 ? medianBy(e2eDone, (x) => x) : NaN;
  row(
    `end to end, ${fmt(E2E)} messages accepted → \`delivered\` (simulator, 0 latency)`,
    `${fmt(e2e)} msg/s${ratesText(e2eRounds)}`,
    'target 50,000 msg/s',
    ratio(e2e, 50_000),
    '≥ 1',
  );

  console.error('bench/engine.ts scheduled, pg (when present) ...');
  const scheduled = engineScript('scheduled');
  if (scheduled) {
    const mib = Number(/resident memory\s+([\d.]+)\s*MiB/.exec(scheduled.join('\n'))?.[1] ?? NaN);
    row(
      '1,000,000 scheduled messages held (`bench/engine.ts scheduled`)',
      Number.isFinite(mib) ? `${fmt(mib)} MiB resident` : 'see below',
      'ceiling 1,024 MiB',
      ratio(mib, 1024),
      '≤ 1',
    );
    if (!Number.isFinite(mib)) notes.push(...scheduled);
  }
  const databaseUrl = process.env['DATABASE_URL'];
  if (databaseUrl?.startsWith('postgres')) {
    const pg = engineScript('pg');
    if (pg) {
      const text = pg.join('\n');
      const ingest = Number(/\(PostgreSQL\), median[^\n]*?([\d,]+)\s+messages\/s/.exec(text)?.[1]?.replaceAll(',', '') ?? NaN);
      const scale = Number(/two processes \/ one\s+([\d.]+)/.exec(text)?.[1] ?? NaN);
      const scaleRounds = /two processes \/ one\s+[\d.]+ \(([^)]*)\)/.exec(text)?.[1];
      const shared = /two processes, one account \/ one\s+([\d.]+)(?: \(([^)]*)\))?/.exec(text);
      if (Number.isFinite(ingest))
        row(
          'PostgreSQL ingest, engine API (`bench/engine.ts pg`)',
          `${fmt(ingest)} msg/s`,
          'target 60,000 msg/s',
          ratio(ingest, 60_000),
          '≥ 1',
        );
      if (Number.isFinite(scale))
        row(
          'PostgreSQL, two engine processes on one database / one',
          `${scale.toFixed(2)}×${scaleRounds ? ` (rounds: ${scaleRounds})` : ''}`,
          'target 1.6×',
          ratio(scale, 1.6),
          '≥ 1',
        );
      if (shared)
        row(
          '  the same, both processes sending for one account',
          `${Number(shared[1]).toFixed(2)}×${shared[2] ? ` (rounds: ${shared[2]})` : ''}`,
          'one process',
          '',
          '',
        );
      notes.push(...pg.map((l) => `bench/engine.ts pg: ${l.trim()}`));
    }
  } else notes.push('DATABASE_URL not set: no PostgreSQL figures');

  if (BACKLOG > 0) {
    console.error(`backlog of ${BACKLOG} ...`);
    const lines = await backlog(BACKLOG).catch((error: Error) => [`backlog failed: ${error.message}`]);
    const drained = Number(/\((\d+) messages\/s to delivered\)/.exec(lines[0] ?? '')?.[1] ?? NaN);
    const p99 = /p99 ([\d.]+) ms/.exec(lines[1] ?? '')?.[1];
    row(
      `backlog of ${fmt(BACKLOG)} due at once: drained, through the server`,
      `${fmt(drained)} msg/s`,
      `\`/health\` p99 ${p99 ?? '?'} ms meanwhile`,
      '',
      '',
    );
    notes.push(...lines);
  }
} finally {
  for (const child of children) await stop(child);
  rmSync(dir, { recursive: true, force: true });
}

console.log('| what | Spillway | peer or ceiling, same run | ratio | target |');
console.log('|---|---:|---:|---:|---|');
for (const r of rows) console.log(`| ${r.what} | ${r.spillway} | ${r.peer} | ${r.ratio} | ${r.target} |`);
if (notes.length) console.log(`\n${notes.map((n) => `- ${n}`).join('\n')}`);
