import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CRASH_KEY, freePort, startProcess } from '../support/server-process.ts';

// What kept-alive clients see when `spillway serve` (SQLite) gets SIGTERM: the request in flight
// is answered with `Connection: close`, idle connections are closed cleanly (a FIN, not a reset),
// new connections are refused. A request that reached the server on a busy connection once it
// was closing (a pipelined `GET /health` behind a send whose body was still coming) made the
// process die of ERR_HTTP_HEADERS_SENT (exit 1, the send unanswered): `/health` is answered in
// the request's own turn, before the listener that marks answers `Connection: close` ran, and that
// listener threw on the answer's written head. The shutdown runs on one HTTP thread here, so that
// the test knows which thread holds its connections.

const dir = mkdtempSync(join(tmpdir(), 'spillway-sigterm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Resolves once nothing accepts on `port` any more: the server stopped listening, so it is closing. */
async function refused(port: number): Promise<void> {
  for (;;) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (!accepted) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What a socket went through, kept from now on. */
function watch(socket: Socket) {
  const seen = { data: '', ended: false, error: null as string | null, closed: null as Promise<boolean> | null };
  socket.on('data', (chunk: Buffer) => (seen.data += chunk.toString()));
  socket.on('end', () => (seen.ended = true));
  socket.on('error', (error: NodeJS.ErrnoException) => (seen.error = error.code ?? error.message));
  seen.closed = new Promise((resolve) => socket.once('close', resolve));
  return seen;
}

describe('spillway serve on SIGTERM, with kept-alive connections', () => {
  it('answers the request in flight with Connection: close, closes idle connections cleanly, refuses new ones, and exits 0', async () => {
    const port = await freePort();
    const server = await startProcess({ SPILLWAY_DB: join(dir, 'sigterm.db'), SPILLWAY_HTTP_THREADS: '1' }, port, children);
    const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));

    // Two idle kept-alive connections of an Agent.
    const agent = new Agent({ keepAlive: true });
    const get = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode!));
        });
        req.once('error', reject);
        req.end();
      });
    expect(await Promise.all([get('/health'), get('/health')])).toEqual([200, 200]);
    const idle = Object.values(agent.freeSockets)
      .flat()
      .map((socket) => watch(socket!));
    expect(idle).toHaveLength(2);

    // A send in flight: its body half sent.
    const body = JSON.stringify({ messages: [{ from: 'Shop', to: '99900000001', type: 'sms', text: 'hi' }] });
    const busy = connect(port, '127.0.0.1');
    await new Promise((resolve) => busy.once('connect', resolve));
    const inFlight = watch(busy);
    busy.write(
      `POST /bat/messagelist HTTP/1.1\r\nHost: x\r\nX-Authorization-Key: ${CRASH_KEY}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );

    server.kill('SIGTERM');
    await refused(port);
    // The rest of the body, and a request behind it on the same connection.
    busy.write(`${body.slice(10)}GET /health HTTP/1.1\r\nHost: x\r\n\r\n`);

    expect(await inFlight.closed).toBe(false);
    expect(inFlight.error).toBeNull();
    const answers = inFlight.data.split(/(?=HTTP\/1\.1 )/);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answers[0]).toContain('"messageId"');
    // Every answer closes the connection, the pipelined one's too if it got one.
    for (const answer of answers) expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n');
    expect(inFlight.ended).toBe(true);

    for (const socket of idle) {
      expect(await socket.closed).toBe(false);
      expect([socket.ended, socket.error]).toEqual([true, null]);
    }
    // Nothing left to reuse: a new request opens a connection, refused.
    await expect(get('/health')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(await exited).toBe(0);
    agent.destroy();
  }, 120_000);
});
