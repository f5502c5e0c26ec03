import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
let started: ChildProcess | undefined;
let dir: string | undefined;
afterEach(() => {
  // The wrapper was started in its own process group: whatever is left of it goes with the group.
  if (started?.pid) {
    try {
      process.kill(-started.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  started = undefined;
  dir = undefined;
});

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

const health = async (port: number): Promise<boolean> => {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
};

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** Starts `npx -y pnpm@10 start` in a process group of its own (as a terminal runs it) and waits until it serves: its port. */
async function startCommand(): Promise<number> {
  const port = await freePort();
  dir = mkdtempSync(join(tmpdir(), 'spillway-start-'));
  started = spawn('npx', ['-y', 'pnpm@10', 'start'], {
    cwd: root,
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', SPILLWAY_DB: join(dir, 'db.sqlite'), SPILLWAY_LOG_LEVEL: 'warn' },
  });
  expect(await waitFor(() => health(port), 90_000)).toBe(true);
  return port;
}

describe("the README's start command", () => {
  it('stops the server when the wrapper gets SIGTERM: no orphan keeps the port', { timeout: 120_000 }, async () => {
    const port = await startCommand();
    process.kill(started!.pid!, 'SIGTERM');
    expect(await waitFor(async () => !(await health(port)), 15_000)).toBe(true);
  });

  it('stops the server on Ctrl-C in its terminal (SIGINT to the whole process group)', { timeout: 120_000 }, async () => {
    const port = await startCommand();
    process.kill(-started!.pid!, 'SIGINT');
    expect(await waitFor(async () => !(await health(port)), 15_000)).toBe(true);
  });
});
