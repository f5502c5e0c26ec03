import { readFileSync } from 'node:fs';

/** Programs that only launch the server: when one of them goes away, nobody is left to stop it. */
const LAUNCHERS = new Set(['node', 'npm', 'npx', 'pnpm', 'tsx', 'corepack', 'yarn']);
/** Shells count only as `sh -c '...'` (a script runner), never as an interactive shell. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh']);

function readProc(pid: number, file: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
}

function isLauncher(pid: number): boolean {
  const argv = readProc(pid, 'cmdline')?.split('\0').filter(Boolean);
  if (!argv?.length) return false;
  // npm and pnpm overwrite their title ("npm exec pnpm@10 start"): the first word names the program.
  const program = (argv[0]!.split(' ')[0] ?? '').split('/').pop() ?? '';
  if (SHELLS.has(program)) return argv.includes('-c');
  if (LAUNCHERS.has(program)) return true;
  return argv.some((a) => /\/(npm|npx|pnpm|tsx)(\.c?[jm]s)?$/.test(a));
}

function parentOf(pid: number): number | null {
  const stat = readProc(pid, 'stat');
  if (!stat) return null;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  return Number.isSafeInteger(ppid) ? ppid : null;
}

/**
 * The launchers above this process (`npx` → `sh -c pnpm` → `pnpm` → `sh -c node ...`), nearest
 * first, up to the first process that is not one (a terminal's shell, an init, a supervisor).
 * Read from /proc; empty where there is none.
 */
export function launcherChain(start = process.ppid): number[] {
  const chain: number[] = [];
  let pid: number | null = start;
  while (pid !== null && pid > 1 && chain.length < 16 && isLauncher(pid)) {
    chain.push(pid);
    pid = parentOf(pid);
  }
  return chain;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Whether this process was started to outlive whatever started it: under `nohup`, or already
 * handed to init (a double fork, a process manager's daemon). Node resets an inherited ignored
 * SIGHUP before any script runs (`SigIgn` in /proc/self/status never has it, checked on Node 20),
 * so `nohup` is known from `_`, the program bash and zsh name there when they run one: nohup
 * execs the server and leaves no process of its own to see.
 */
function startedToOutlive(parent = process.ppid, env: Record<string, string | undefined> = process.env): boolean {
  return parent === 1 || underNohup(env);
}

/** Whether bash or zsh ran this process through `nohup` (see {@link startedToOutlive}). */
function underNohup(env: Record<string, string | undefined> = process.env): boolean {
  return env['_']?.split('/').pop() === 'nohup';
}

/**
 * Calls `onGone` once when the parent, or any launcher above it, is gone; nothing when the
 * process was {@link startedToOutlive} its launchers (`nohup node cli.js serve &`). A signal sent to
 * `npx pnpm start` (a container's PID 1, a supervisor) kills the wrappers, and not every wrapper
 * forwards it: without this the server would run on as an orphan that only SIGKILL stops.
 * Answers a function that stops watching.
 */
export function exitWithLauncher(onGone: () => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  if (startedToOutlive(parent)) {
    // What nohup asked for, which Node undid: a hang-up of the terminal does not end the server.
    if (underNohup()) process.on('SIGHUP', () => undefined);
    return () => undefined;
  }
  const chain = launcherChain(parent);
  const timer = setInterval(() => {
    if (process.ppid === parent && chain.every(alive)) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
