import { STATUS_CODES, createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { DirectRoutes } from './direct-routes.ts';

/** A fetch handler; under Node, `env` is `{ incoming, outgoing }` (the client address comes from it). */
export type FetchHandler = (req: Request, env?: unknown) => Promise<Response> | Response;

/**
 * A Node `http` request listener over a fetch handler, for a plain `http.Server`, with `direct`
 * routes in front of it if given (`Spillway.direct`). To mount in
 * express, fastify or koa use `toNodeHandler`, `toFastifyPlugin` or `toKoaMiddleware`.
 */
export function createNodeListener(
  handler: FetchHandler,
  direct?: DirectRoutes,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const listener = getRequestListener((req, env) => handler(req, env));
  if (!direct) return listener;
  return async (req, res) => direct(req, res, () => void listener(req, res));
}

/** Options of {@link serve}. */
export interface ServeOptions {
  fetch: FetchHandler;
  /** Routes answered before `fetch` is asked (`Spillway.direct`); they hand it what they do not take. */
  direct?: DirectRoutes | undefined;
  /** 0 picks a free port, answered in the result. @default 8080 */
  port?: number;
  /**
   * Accept on this listening socket instead of binding `port` and `hostname`: anything
   * `net.Server.listen(handle)` takes (another server, a handle received from another process).
   */
  handle?: unknown;
  /** @default '127.0.0.1' */
  hostname?: string;
  /** Largest request head (request line and headers); larger ones get a JSON 431. @default 16384 */
  maxHeaderBytes?: number;
}

/** @default 16 KiB */
export const DEFAULT_MAX_HEADER_BYTES = 16 * 1024;

/**
 * Answers the requests Node's parser refuses before any handler runs (headers too large, a
 * malformed request) with the JSON error body of every other error instead of an empty page:
 * 431 for oversized headers, 400 otherwise. `serve` attaches it; attach it to your own
 * `http.Server` when mounting {@link createNodeListener} elsewhere.
 */
export function answerClientErrors(server: Server, maxHeaderBytes = DEFAULT_MAX_HEADER_BYTES): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : error.code === 'HPE_HEADERS_TIMEOUT' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify(
      tooLarge
        ? { error: 'headers_too_large', message: `Request headers exceed ${maxHeaderBytes} bytes`, status }
        : status === 408
          ? { error: 'request_timeout', message: 'The request was not received in time', status }
          : { error: 'bad_request', message: 'Malformed HTTP request', status },
    );
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/** A listening server: its real port and a `close()` that also drops kept-alive connections. */
export interface RunningServer {
  port: number;
  hostname: string;
  /** The Node server (its timeouts, its events). */
  server: Server;
  /**
   * Stops accepting, answers what it holds with `Connection: close` and closes idle connections;
   * resolves once every connection is closed (a request held open holds it: a stop with a
   * deadline waits for it only so long).
   */
  close(): Promise<void>;
  /** Requests received and not answered in full yet (what a stop that reached its deadline leaves). */
  unanswered(): number;
}

/**
 * Starts a Node HTTP server over a fetch handler and resolves once it listens.
 *
 * @example
 * const server = await serve({ fetch: createFetchHandler({ engine }), port: 0 });
 * await fetch(`http://127.0.0.1:${server.port}/health`);
 * await server.close();
 */
export function serve(options: ServeOptions): Promise<RunningServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  const maxHeaderBytes = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
  const listener = createNodeListener(options.fetch, options.direct);
  let closing = false;
  // Once closing, every answer closes its connection, those in flight included: a kept-alive
  // client cannot go on sending. The answers are found through their connections (the latest
  // answer of each; pipelined ones before it are written first, with the connection open), not
  // kept in a set of their own: a set that gains and loses an entry every request has its table
  // replaced in the old generation again and again, and the replaced tables, garbage until the
  // next full collection, keep every answer, its request and their buffers alive through the
  // young generation's collections. Each request was then copied twice and promoted (about 8 MB
  // a scavenge under load, every request of /health; `docs/decisions.md`, "Speed, twelfth pass").
  const connections = new Set<Socket>();
  const latest = new WeakMap<Socket, ServerResponse>();
  // Marked before the routes run: a direct route answers `/health` in the request's own turn, and
  // a mark after it (a second 'request' listener) threw ERR_HTTP_HEADERS_SENT, which ended the
  // process, for a request that came on a busy connection once the server was closing.
  const server = createServer({ maxHeaderSize: maxHeaderBytes }, (req: IncomingMessage, res: ServerResponse) => {
    if (closing) res.setHeader('connection', 'close');
    else latest.set(req.socket, res);
    return listener(req, res);
  });
  answerClientErrors(server, maxHeaderBytes);
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      resolve({
        port,
        hostname,
        server,
        unanswered: () => {
          let count = 0;
          for (const socket of connections) {
            const res = latest.get(socket);
            if (res && !res.writableFinished) count++;
          }
          return count;
        },
        close: () =>
          new Promise<void>((done, fail) => {
            closing = true;
            for (const socket of connections) {
              const res = latest.get(socket);
              if (!res || res.writableFinished) continue;
              if (!res.headersSent) res.setHeader('connection', 'close');
              // Its head already written as kept alive (a status read or `/health`, ended with
              // the turn's other answers): its connection is closed once it is ended, or it
              // stayed open for the keep-alive timeout, holding close() for 5 s.
              else res.once('finish', () => server.closeIdleConnections());
            }
            server.close((err) => (err ? fail(err) : done()));
            // Idle keep-alive sockets would hold close() open until they time out.
            server.closeIdleConnections();
          }),
      });
    };
    if (options.handle !== undefined) server.listen(options.handle as Parameters<Server['listen']>[0], listening);
    else server.listen(options.port ?? 8080, hostname, listening);
  });
}
