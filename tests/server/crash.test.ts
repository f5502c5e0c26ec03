import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  CRASH_KEY,
  expectedFinal,
  freePort,
  sendBatch,
  settled,
  startProcess,
  stopProcess,
  sumOfCosts,
} from '../support/server-process.ts';

const exists = async (port: number, id: number) =>
  (await fetch(`http://127.0.0.1:${port}/bat/message/${id}`, { headers: { 'X-Authorization-Key': CRASH_KEY } })).status === 200;

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
async function load(name: string, crash: (child: ChildProcess, moment: number) => Promise<boolean>, ingestCrash = false) {
  const env = { SPILLWAY_DB: join(dir, `${name}.db`) };
  const port = await freePort();
  let child = await startProcess(env, port, children);
  const ids: number[] = [];
  for (let batch = 0; batch < 3; batch++) {
    ids.push(...(await sendBatch(port, batch)));
    if (await crash(child, batch)) child = await startProcess(env, port, children);
  }
  if (ingestCrash) {
    // Killed while a request is being accepted: what was answered 200 must end right; what was
    // not answered was either stored whole or not at all (it is not counted here).
    const pending = sendBatch(port, 3).then(
      (more) => more,
      () => [] as number[],
    );
    await new Promise((r) => setTimeout(r, 5));
    await stopProcess(child, 'SIGKILL');
    const answered = await pending;
    child = await startProcess(env, port, children);
    if (answered.length > 0) ids.push(...answered);
    else {
      // Not answered: if the request was stored, it was stored whole, right after the others.
      const next = ids.at(-1)! + 1;
      const stored = await Promise.all(Array.from({ length: 200 }, (_, k) => exists(port, next + k)));
      expect(new Set(stored).size).toBe(1);
      if (stored[0]) ids.push(...Array.from({ length: 200 }, (_, k) => next + k));
    }
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

    const crashed = await load(
      'crashed',
      async (child, batch) => {
        // Right after acceptance; while the first reports are due; after the last request mid-drain (SIGTERM).
        const wait = [0, 250, 150][batch]!;
        await new Promise((r) => setTimeout(r, wait));
        const code = await stopProcess(child, batch === 2 ? 'SIGTERM' : 'SIGKILL');
        if (batch === 2) expect(code).toBe(0);
        return true;
      },
      true,
    );
    // Every answered message ends as in the calm run (the same numbers, position by position).
    expect(crashed.finals).toEqual(crashed.finals.map((_, i) => expectedFinal(i)));
    expect(crashed.finals.slice(0, calm.finals.length)).toEqual(calm.finals);
    expect(crashed.consumed).toBe(sumOfCosts(crashed.finals));
  }, 120_000);
});
