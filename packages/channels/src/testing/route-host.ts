import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelContext, ChannelDriver } from '@spillway/core';

/**
 * A real HTTP server for driver tests: serves the routes of the driver currently attached under
 * `/channels/{name}`, like the HTTP adapter does. Requests arriving while no driver is attached
 * are held until one is (a restart of the driver between send and report).
 */
export interface RouteHost {
  url: string;
  /** Attaches a driver and its context; the returned function detaches it. */
  serve(driver: ChannelDriver, ctx: ChannelContext): Promise<() => Promise<void>>;
  /** Requests seen, as `METHOD path?query`. */
  readonly seen: string[];
  close(): Promise<void>;
}

export async function startRouteHost(): Promise<RouteHost> {
  let current: { driver: ChannelDriver; ctx: ChannelContext } | null = null;
  let waiters: (() => void)[] = [];
  const seen: string[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    seen.push(`${req.method} ${url.pathname}${url.search}`);
    while (!current) await new Promise<void>((r) => waiters.push(r));
    const { driver, ctx } = current;
    const prefix = `/channels/${driver.name}`;
    const route = driver.routes?.find((r) => r.method === req.method && url.pathname === prefix + r.path);
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not_found', status: 404 }));
      return;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const body = chunks.length && req.method !== 'GET' ? Buffer.concat(chunks) : undefined;
    const answer = await route.handle(new Request(url, { method: req.method ?? 'GET', headers, ...(body ? { body } : {}) }), ctx);
    const out: Record<string, string> = {};
    answer.headers.forEach((v, k) => (out[k] = v));
    res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    async serve(driver, ctx) {
      current = { driver, ctx };
      const w = waiters;
      waiters = [];
      for (const wake of w) wake();
      return async () => {
        if (current?.driver === driver) current = null;
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
