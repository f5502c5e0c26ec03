import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';

/** A fetch handler; under Node, `env` is `{ incoming, outgoing }` (the client address comes from it). */
export type FetchHandler = (req: Request, env?: unknown) => Promise<Response> | Response;

/** A Node `http` request listener over a fetch handler: mount it in express, fastify or koa. */
export function createNodeListener(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return getRequestListener((req, env) => handler(req, env));
}

export interface ServeOptions {
  fetch: FetchHandler;
  /** 0 picks a free port, answered in the result. @default 8080 */
  port?: number;
  /** @default '127.0.0.1' */
  hostname?: string;
}

/** A listening server: its real port and a `close()` that also drops kept-alive connections. */
export interface RunningServer {
  port: number;
  hostname: string;
  close(): Promise<void>;
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
  const server = createServer(createNodeListener(options.fetch));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, hostname, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      resolve({
        port,
        hostname,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((err) => (err ? fail(err) : done()));
            // Idle keep-alive sockets would hold close() open until they time out.
            server.closeIdleConnections();
          }),
      });
    });
  });
}
