import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresStorage } from '@spillway/postgres';
import { expectedFinal, freePorts, sendBatch, settled, startProcess, stopProcess, sumOfCosts } from '../support/server-process.ts';

// Two reference servers on one PostgreSQL schema share the work; one is killed with SIGKILL in
// the middle of it. The survivor must finish every message as a run without the crash would
// (the same status and cost per message), within seconds, and the wallet must have consumed
// exactly the recorded costs. Runs in the PostgreSQL suite (DATABASE_URL).

const url = process.env['DATABASE_URL'];
const children: ChildProcess[] = [];
const schemas: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const schema of schemas.splice(0)) {
    const admin = createPostgresStorage({ connectionString: url!, schema });
    await admin.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.close();
  }
});

describe.runIf(url?.startsWith('postgres'))('two servers on PostgreSQL, one killed', () => {
  it('the survivor finishes everything the dead one held, charging exactly the recorded costs', async () => {
    const schema = `spillway_crash_${Date.now().toString(36)}`;
    schemas.push(schema);
    const env = { DATABASE_URL: url!, SPILLWAY_PG_SCHEMA: schema };
    const [portA, portB] = (await freePorts(2)) as [number, number];
    const a = await startProcess(env, portA, children);
    await startProcess(env, portB, children);
    const ids = [...(await sendBatch(portA, 0)), ...(await sendBatch(portB, 1)), ...(await sendBatch(portA, 2))];
    await new Promise((r) => setTimeout(r, 150));
    await stopProcess(a, 'SIGKILL');
    const outcome = await settled(portB, ids);
    expect(outcome.finals).toEqual(outcome.finals.map((_, i) => expectedFinal(i)));
    expect(outcome.consumed).toBe(sumOfCosts(outcome.finals));
  }, 120_000);
});
