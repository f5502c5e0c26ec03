import { createServer, type Server } from 'node:net';

/**
 * `count` distinct free TCP ports on 127.0.0.1, for test and benchmark processes: every listener
 * stays open until all are chosen, so the system cannot hand the same port out twice (ports taken
 * one by one, each closed before the next, once gave bearerbox's fake SMSC and smsbox one port).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** One free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
}
