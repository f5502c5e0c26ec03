import { spawn } from 'node:child_process';

/**
 * The helper's program: it holds the listening socket as its descriptor 3 (inherited), wraps it as
 * a socket handle that reads nothing (so it never accepts a connection) and sends the handle back
 * over its IPC channel, which gives the parent a descriptor of its own for the same socket; then
 * it exits.
 */
const HELPER = `
const net = require('node:net');
const socket = new net.Socket({ fd: 3, readable: false, writable: false, manualStart: true });
process.send('listener', socket._handle, () => process.exit(0));
`;

/**
 * A handle of its own on the listening socket whose descriptor is `fd` (another thread's server's),
 * for this thread's server to accept on: `server.listen(handle)`.
 *
 * Node 20 has neither `dup` nor `reusePort`, and threads cannot pass handles to each other. A
 * thread that listened on the other's descriptor number would share that number: closing either
 * server would close the socket under the other, and the number, reused by the next file opened,
 * would then be closed a second time by whichever server closed last. So the descriptor is
 * duplicated the way Node's cluster hands a listening socket to its workers: sent over an IPC
 * channel (`SCM_RIGHTS`), which gives the receiver a new descriptor of the same socket; the only
 * process on the other end of a channel of this thread's is a child, hence the short-lived helper.
 * Each thread's server then closes only its own descriptor, and the socket stays open while one
 * of them listens. Both accept from the one socket: the kernel hands each connection to one of them.
 */
export function duplicateListener(fd: number): Promise<unknown> {
  const helper = spawn(process.execPath, ['-e', HELPER], {
    stdio: ['ignore', 'ignore', 'pipe', fd, 'ipc'],
    // The parent's options (a loader, the young generation's size) are not the helper's business.
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  // What the helper says on failure (node's uncaught error), for the error it rejects with.
  let said = '';
  helper.stderr?.setEncoding('utf8').on('data', (chunk: string) => (said = (said + chunk).slice(0, 4096)));
  return new Promise((resolve, reject) => {
    helper.once('message', (message: unknown, handle: unknown) => {
      if (message === 'listener' && handle) resolve(handle);
      else reject(new Error('the listener helper sent no handle'));
    });
    helper.once('error', reject);
    // 'close', after its stderr ended: the reason is read in full.
    helper.once('close', (code) => {
      const reason = /^\w*Error\b.*$/m.exec(said)?.[0];
      reject(new Error(`the listener helper exited (${code}) before sending the handle${reason ? `: ${reason}` : ''}`));
    });
  });
}
