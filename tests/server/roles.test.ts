import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { expectedFinal, freePort, sendBatch, settled, spawnServer, startProcess, stopProcess } from '../support/server-process.ts';

// Scale-out as the README shows it: `spillway serve --role api` and `--role worker` as separate
// processes on one database. The API process runs no workers, so only the worker process can
// carry what it accepts to a final status.

const dir = mkdtempSync(join(tmpdir(), 'spillway-roles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('spillway serve --role', () => {
  it('a worker process stays up, delivers what an API process on the same file accepted, serves its metrics, and stops cleanly', async () => {
    const db = join(dir, 'roles.db');
    const port = await freePort();
    const api = await startProcess({ SPILLWAY_DB: db, SPILLWAY_ROLE: 'api' }, port, children);
    const metricsPort = await freePort();
    const worker = spawnServer({ SPILLWAY_DB: db, SPILLWAY_ROLE: 'worker', SPILLWAY_METRICS_PORT: String(metricsPort) }, 0, children);

    // A worker process that goes away fails the test at once, naming its exit code.
    const gone = new Promise<never>((_, reject) =>
      worker.once('exit', (code) => reject(new Error(`the worker process exited with ${code} while messages waited`))),
    );
    const ids = await sendBatch(port, 0);
    const { finals } = await Promise.race([settled(port, ids), gone]);
    expect(finals).toEqual(finals.map((_, i) => expectedFinal(i)));
    expect(worker.exitCode).toBeNull();

    // The worker process's own metrics port: every message it finished, counted once.
    const metricsUrl = `http://127.0.0.1:${metricsPort}`;
    const finished = async () => {
      const text = await (await fetch(`${metricsUrl}/metrics`)).text();
      return [...text.matchAll(/^spillway_messages_finished_total\{status="[a-z]+"\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    };
    expect(await finished()).toBe(ids.length);
    expect(await (await fetch(`${metricsUrl}/health`)).json()).toEqual({ status: 'ok', workers: 1, role: 'worker' });
    const missing = await fetch(`${metricsUrl}/bat/messagelist`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not_found', status: 404 });
    const posted = await fetch(`${metricsUrl}/metrics`, { method: 'POST' });
    expect([posted.status, posted.headers.get('allow')]).toEqual([405, 'GET, HEAD']);

    expect(await stopProcess(worker, 'SIGTERM')).toBe(0);
    expect(await stopProcess(api, 'SIGTERM')).toBe(0);
  });
});
