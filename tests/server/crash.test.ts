import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { expectedFinal, freePort, sendBatch, settled, startProcess, stopProcess, sumOfCosts } from '../support/server-process.ts';

// The reference server as users run it, in a child process on a SQLite file, killed with
// SIGKILL or SIGTERM while it works through a load, restarted on the same file: every accepted
// message must end as it ends in a run without the crash, charged the same, and the wallet must
// have consumed exactly the sum of the recorded costs.

const dir = mkdtempSync(join(tmpdir(), 'spillway-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Sends three requests, `crash`ing the server at the moments it chooses; answers the settled outcome. */
async function load(name: string, crash: (child: ChildProcess, moment: number) => Promise<boolean>) {
  const env = { SPILLWAY_DB: join(dir, `${name}.db`) };
  const port = await freePort();
  let child = await startProcess(env, port, children);
  const ids: number[] = [];
  for (let batch = 0; batch < 3; batch++) {
    ids.push(...(await sendBatch(port, batch)));
    if (await crash(child, batch)) child = await startProcess(env, port, children);
  }
  const outcome = await settled(port, ids);
  await stopProcess(child, 'SIGTERM');
  return outcome;
}

describe('the reference server through crashes', () => {
  it('ends every message as without the crash after kill -9 and SIGTERM at different moments, charging exactly the recorded costs', async () => {
    const calm = await load('calm', async () => false);
    expect(calm.finals).toEqual(calm.finals.map((_, i) => expectedFinal(i)));
    expect(calm.consumed).toBe(sumOfCosts(calm.finals));

    const crashed = await load('crashed', async (child, batch) => {
      // Right after acceptance; while the first reports are due; after the last request mid-drain (SIGTERM).
      const wait = [0, 250, 150][batch]!;
      await new Promise((r) => setTimeout(r, wait));
      const code = await stopProcess(child, batch === 2 ? 'SIGTERM' : 'SIGKILL');
      if (batch === 2) expect(code).toBe(0);
      return true;
    });
    expect(crashed.finals).toEqual(calm.finals);
    expect(crashed.consumed).toBe(calm.consumed);
  }, 120_000);
});
