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
  it('a worker process stays up and delivers what an API process on the same file accepted, and stops cleanly', async () => {
    const db = join(dir, 'roles.db');
    const port = await freePort();
    const api = await startProcess({ SPILLWAY_DB: db, SPILLWAY_ROLE: 'api' }, port, children);
    const worker = spawnServer({ SPILLWAY_DB: db, SPILLWAY_ROLE: 'worker' }, 0, children);

    // A worker process that goes away fails the test at once, naming its exit code.
    const gone = new Promise<never>((_, reject) =>
      worker.once('exit', (code) => reject(new Error(`the worker process exited with ${code} while messages waited`))),
    );
    const ids = await sendBatch(port, 0);
    const { finals } = await Promise.race([settled(port, ids), gone]);
    expect(finals).toEqual(finals.map((_, i) => expectedFinal(i)));
    expect(worker.exitCode).toBeNull();

    expect(await stopProcess(worker, 'SIGTERM')).toBe(0);
    expect(await stopProcess(api, 'SIGTERM')).toBe(0);
  });
});
