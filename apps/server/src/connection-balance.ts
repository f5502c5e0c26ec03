import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/** The counts, per thread, that the HTTP threads of one server share (cells of a `SharedArrayBuffer`). */
export interface ConnectionCounts {
  /** Open connections. */
  open: Int32Array;
  /** Open connections whose latest request read (GET, HEAD, OPTIONS). */
  readers: Int32Array;
}

/** What one HTTP thread needs to spread the connections: the shared counts and its own place. */
export interface ConnectionBalance extends ConnectionCounts {
  /** This thread's index in the counts. */
  index: number;
  /** Whether this thread serves the connections that write. */
  writer: boolean;
}

/** Shared counts for `threads` HTTP threads. */
export function connectionCounts(threads: number): ConnectionCounts {
  return { open: new Int32Array(new SharedArrayBuffer(4 * threads)), readers: new Int32Array(new SharedArrayBuffer(4 * threads)) };
}

/** `spillway_http_connections{thread}` on `registry`: the connections each HTTP thread holds open. */
export function registerConnectionsGauge(registry: Registry, counts: ConnectionCounts): void {
  new Gauge({
    name: 'spillway_http_connections',
    help: 'Open HTTP connections, by HTTP thread (SPILLWAY_HTTP_THREADS)',
    labelNames: ['thread'] as const,
    registers: [registry],
    collect() {
      counts.open.forEach((_, thread) => this.set({ thread: String(thread) }, Atomics.load(counts.open, thread)));
    },
  });
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Spreads the connections of HTTP threads that accept from one listening socket, by asking a
 * client to reconnect (`Connection: close` on an answer; HTTP/1.1 clients open a new connection
 * for their next request, which lands on whichever thread the kernel picks):
 *
 * - A connection that writes (any method but GET, HEAD, OPTIONS) on a thread that is not the
 *   writer is answered, then closed: writes end up on one thread. Once it wrote, its reads no
 *   longer count among the reading connections, so that a connection that both reads and writes
 *   is never moved back and forth. Its group commit then carries
 *   every send of a turn in one transaction, where threads each committing their own share of the
 *   sends wrote about twice the log pages a send and took turns at SQLite's write lock (measured:
 *   14,300 single sends a second with two writing threads, 20,000 with one; `docs/decisions.md`).
 * - A connection that reads, on a thread holding more of the reading connections than its share
 *   (the total rounded up over the threads), is closed after its answer: the kernel gives a burst
 *   of new connections to whichever thread wakes first, often all to one.
 *
 * The first request of a connection is always answered where it arrived: a client sees nothing but
 * a new connection now and then.
 */
export function balanceConnections(server: Server, balance: ConnectionBalance): void {
  const { open, readers, index, writer } = balance;
  const threads = readers.length;
  /** Connections counted as reading. */
  const reading = new WeakSet<Socket>();
  /** Connections that wrote: writers for good, so that reads never move them off the writer again. */
  const wrote = new WeakSet<Socket>();
  /** Connections counted open, each uncounted (and its reading with it) when it closes. */
  const tracked = new WeakSet<Socket>();
  const track = (socket: Socket) => {
    if (tracked.has(socket)) return;
    tracked.add(socket);
    Atomics.add(open, index, 1);
    socket.once('close', () => {
      Atomics.sub(open, index, 1);
      if (reading.delete(socket)) Atomics.sub(readers, index, 1);
    });
  };
  server.on('connection', track);
  // Before the app's listener: the header must be set before anything is written.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    // A connection the server took before this was called (the main thread serves alone until its
    // extra threads are up) is counted from its next request on, and uncounted when it closes:
    // counted as reading without its close, it stayed a reader of this thread for good, and the
    // other threads kept every reading connection.
    track(socket);
    if (!READS.has(req.method ?? '')) {
      if (reading.delete(socket)) Atomics.sub(readers, index, 1);
      wrote.add(socket);
      if (!writer) res.setHeader('Connection', 'close');
      return;
    }
    // A connection that reads and writes stays where it writes.
    if (wrote.has(socket)) return;
    if (!reading.has(socket)) {
      reading.add(socket);
      Atomics.add(readers, index, 1);
    }
    let total = 0;
    for (let i = 0; i < threads; i++) total += Atomics.load(readers, i);
    if (Atomics.load(readers, index) > Math.ceil(total / threads)) res.setHeader('Connection', 'close');
  });
}
