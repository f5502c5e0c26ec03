import { Agent, createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { balanceConnections, connectionCounts } from '../../apps/server/src/connection-balance.ts';
import { until } from '../support/server-fixture.ts';

// The counts one HTTP thread keeps of its connections, which every thread reads to spread the
// reading ones: a connection must be uncounted when it closes, whenever it was first counted.

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function listening(): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => res.end('{}'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

/** A GET over `agent`'s one kept-alive connection; whether the server asked to close it. */
const get = (url: string, agent: Agent) =>
  new Promise<boolean>((resolve, reject) => {
    request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers.connection === 'close'));
    })
      .on('error', reject)
      .end();
  });

describe('the connection counts of an HTTP thread', () => {
  it('uncount a connection the server took before the balancing began, once it closes', async () => {
    const { server, url } = await listening();
    const counts = connectionCounts(2);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    // Taken while the thread served alone (its extra threads not up yet).
    await get(url, agent);
    balanceConnections(server, { ...counts, index: 0, writer: true });
    // Counted from its next request on: it reads, on this thread.
    await get(url, agent);
    expect([...counts.readers]).toEqual([1, 0]);
    expect([...counts.open]).toEqual([1, 0]);
    agent.destroy();
    const readers = await until(
      async () => [...counts.readers],
      (r) => r[0] === 0,
    );
    expect(readers).toEqual([0, 0]);
    expect([...counts.open]).toEqual([0, 0]);
  });

  it('count a connection once however it was seen, and ask the reading ones over their share to reconnect', async () => {
    const { server, url } = await listening();
    const counts = connectionCounts(2);
    balanceConnections(server, { ...counts, index: 0, writer: true });
    const agents = [0, 1].map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
    expect(await get(url, agents[0]!)).toBe(false);
    expect(await get(url, agents[0]!)).toBe(false);
    expect([...counts.readers]).toEqual([1, 0]);
    // A second reader here while the other thread holds none: over the share of one, asked to reconnect.
    expect(await get(url, agents[1]!)).toBe(true);
    for (const agent of agents) agent.destroy();
    expect(
      await until(
        async () => [...counts.readers, ...counts.open],
        (c) => c.every((n) => n === 0),
      ),
    ).toEqual([0, 0, 0, 0]);
  });
});
