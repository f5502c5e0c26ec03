import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/server-process.ts';
import { SPILLWAY_CLI } from '../support/spillway-command.ts';

// `spillway serve` stops when a launcher above it is gone (`npx pnpm start` killed by SIGTERM,
// see start-command.test.ts), but not when it was started to outlive it. An operator's
// `bash -c 'nohup node apps/server/dist/cli.js serve & sleep 4'` stopped the server after 4 s
// ("the command that started the server is gone"). Here a `bash -c` starts the server in the
// background and exits once the server answers, as that `sleep 4` did.

const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'spillway-launcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: number[] = [];
afterEach(() => {
  for (const pid of servers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** One watch of the launchers is 500 ms: four of them have run in this time. */
const WATCHED = 2_000;
const GONE = 'the command that started the server is gone';

const health = (port: number): Promise<boolean> =>
  fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) }).then(
    (r) => r.ok,
    () => false,
  );

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * `bash -c '<prefix> node cli.js serve & ...'`: the server in the background of a shell that
 * exits once the server answers. Resolves with the server's port, pid and log file once the shell
 * is gone.
 */
async function startUnderShellThatExits(prefix: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const log = join(dir, `${port}.log`);
  const node = [process.execPath, ...SPILLWAY_CLI, 'serve'];
  const shell = spawn('bash', ['-c', `${prefix} ${node.map((a) => `'${a}'`).join(' ')} >'${log}' 2>&1 & echo $!; read -r _`], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'ignore'],
    env: {
      ...process.env,
      DATABASE_URL: '',
      PORT: String(port),
      HOST: '127.0.0.1',
      SPILLWAY_DB: join(dir, `${port}.db`),
      SPILLWAY_LOG_LEVEL: 'warn',
      ...env,
    },
  });
  const exited = new Promise((r) => shell.once('exit', r));
  const pid = await new Promise<number>((r) => shell.stdout.once('data', (chunk: Buffer) => r(Number(chunk.toString().trim()))));
  servers.push(pid);
  expect(await waitFor(() => health(port), 60_000)).toBe(true);
  shell.stdin.end();
  await exited;
  return { port, pid, log: () => readFileSync(log, 'utf8') };
}

describe('spillway serve under a shell that exits', () => {
  it('keeps serving when started with nohup', { timeout: 90_000 }, async () => {
    const { port, pid, log } = await startUnderShellThatExits('nohup');
    await new Promise((r) => setTimeout(r, WATCHED));
    expect(log()).not.toContain(GONE);
    expect(await health(port)).toBe(true);
    // Nor does a hang-up end it, as nohup asked (Node resets an ignored SIGHUP at start).
    process.kill(pid, 'SIGHUP');
    await new Promise((r) => setTimeout(r, 300));
    expect(await health(port)).toBe(true);
    expect(alive(pid)).toBe(true);
  });

  it('keeps serving with SPILLWAY_EXIT_WITH_LAUNCHER=false', { timeout: 90_000 }, async () => {
    const { port, pid, log } = await startUnderShellThatExits('', { SPILLWAY_EXIT_WITH_LAUNCHER: 'false' });
    await new Promise((r) => setTimeout(r, WATCHED));
    expect(log()).not.toContain(GONE);
    expect(await health(port)).toBe(true);
    expect(alive(pid)).toBe(true);
  });

  it('stops, as before, without either: the shell was its launcher', { timeout: 90_000 }, async () => {
    const { port, pid, log } = await startUnderShellThatExits('');
    expect(await waitFor(async () => !alive(pid), 15_000)).toBe(true);
    expect(log()).toContain(GONE);
    expect(await health(port)).toBe(false);
  });
});
