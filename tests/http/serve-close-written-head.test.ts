import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serve } from '@spillway/http';
import type { DirectRoutes, RunningServer } from '@spillway/http';

// `close()` marks the answers in flight `Connection: close`, but an answer whose head was already
// written as kept alive could not be marked: the direct routes write a status read's or `/health`'s
// head in the request's turn and end it with the turn's other answers, after I/O. Closed in
// between (a SIGTERM handled in the same turn), its connection stayed open once the answer was
// ended, holding `close()` and the shutdown until the keep-alive timeout (5 s by default, a
// minute here), and any request on it reached the routes of a closing server.

let running: RunningServer | undefined;
afterEach(async () => {
  // A failed test leaves the connection open: dropped, so that the server closes.
  running?.server.closeAllConnections();
  if (running?.server.listening) await running.close();
  running = undefined;
});

describe('serve().close() with an answer whose head is written', () => {
  it('closes its connection once the answer is ended, without waiting for the keep-alive timeout', async () => {
    let end: (() => void) | undefined;
    let written: () => void = () => {};
    const headWritten = new Promise<void>((resolve) => (written = resolve));
    const direct: DirectRoutes = (req, res, next) => {
      if (req.url !== '/held') return next();
      res.writeHead(200, ['Content-Type', 'text/plain', 'Content-Length', '2']);
      end = () => res.end('ok');
      written();
    };
    running = await serve({ fetch: () => new Response('app'), direct, port: 0 });
    running.server.keepAliveTimeout = 60_000;

    const socket = connect(running.port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
    const closed = new Promise<boolean>((resolve) => socket.once('close', resolve));
    socket.write('GET /held HTTP/1.1\r\nHost: x\r\n\r\n');
    await headWritten;

    let stopped = false;
    const stopping = running.close().then(() => (stopped = true));
    end!();
    // Bounded: without the fix the connection stays open for the minute of the keep-alive timeout.
    const outcome = await Promise.race([closed.then(() => 'closed'), new Promise((resolve) => setTimeout(resolve, 5_000, 'still open'))]);
    expect(outcome).toBe('closed');
    expect(await closed).toBe(false);
    expect(data).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nok$/);
    await stopping;
    expect(stopped).toBe(true);
  });
});
