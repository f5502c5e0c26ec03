/**
 * Responsiveness under a backlog: the reference server in its own process (durable SQLite,
 * simulator latency 0, workers running), 100,000 messages accepted at once, and while the
 * workers work through them, `/health` and a status read are timed one after another from this
 * process. Prints p50/p99/max of each and how long the backlog took to drain.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchServerEnv, freePort, serverArgs } from './bench-server.ts';

// The checkout whose server is measured: this one, or SPILLWAY_BENCH_SERVER_ROOT (see run.ts).
const root = resolve(process.env['SPILLWAY_BENCH_SERVER_ROOT'] ?? resolve(import.meta.dirname, '..'));
const KEY = 'sk_bench_backlog_0123456789';
const H = { 'X-Authorization-Key': KEY, 'Content-Type': 'application/json' };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export async function backlog(total = 100_000): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-backlog-'));
  const port = await freePort();
  const child = spawn(process.execPath, serverArgs(root), {
    cwd: root,
    env: benchServerEnv({ db: join(dir, 'backlog.db'), port, key: KEY, balance: 100_000 }),
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if (
        await fetch(`${base}/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (i > 300) throw new Error('the server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    // Accepted as fast as the server takes them (scheduled one second ahead, so they all come due together).
    const due = new Date(Date.now() + 3_000).toISOString();
    let first = 0;
    for (let sent = 0; sent < total; sent += 5000) {
      const body = {
        messages: Array.from({ length: Math.min(5000, total - sent) }, (_, i) => ({
          from: 'Bench',
          to: `4915${String(10_000_000 + sent + i).padStart(8, '0')}`,
          text: `backlog ${sent + i}`,
          type: 'sms',
          scheduledAt: due,
        })),
      };
      const res = await fetch(`${base}/bat/messagelist`, { method: 'POST', headers: H, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
      if (sent === 0) first = ((await res.json()) as { messages: Array<{ messageId: number }> }).messages[0]!.messageId;
    }
    const last = first + total - 1;
    while (Date.now() < Date.parse(due)) await new Promise((r) => setTimeout(r, 50));
    const start = performance.now();
    const health: number[] = [];
    const status: number[] = [];
    for (;;) {
      let t = performance.now();
      await (await fetch(`${base}/health`)).arrayBuffer();
      health.push(performance.now() - t);
      t = performance.now();
      const record = (await (await fetch(`${base}/bat/message/${last}`, { headers: H })).json()) as { deliverystatus: string };
      status.push(performance.now() - t);
      if (record.deliverystatus === 'delivered') break;
      if (performance.now() - start > 300_000) throw new Error('the backlog did not drain in 5 minutes');
    }
    const seconds = (performance.now() - start) / 1000;
    const show = (name: string, times: number[]) => {
      const sorted = [...times].sort((a, b) => a - b);
      return `${name.padEnd(44)} p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (${times.length} requests)`;
    };
    return [
      `backlog of ${total} messages due at once: drained in ${seconds.toFixed(1)} s (${Math.round(total / seconds)} messages/s to delivered)`,
      show('  GET /health during the drain', health),
      show('  GET /bat/message/{id} during the drain', status),
    ];
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const total = Number(process.argv[2] ?? 100_000);
  for (const line of await backlog(total)) console.log(line);
}
