import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Beacon SMS's cloud (the edge of the world in tests and the demo). The last digit
 * of the recipient chooses what happens: 0-2 delivered, 3 refused as an invalid number, 4 a
 * landline, 7 failed as unreachable, 8 blocked, 9 throttled (429, Retry-After: 2). Other digits
 * are delivered. Reports are posted `reportAfterMs` after acceptance.
 */
export async function startFakeBeacon(options: { apiToken: string; callbackToken: string; reportAfterMs?: number }) {
  const references: string[] = [];
  const accepted: { id: string; to: string; body: string }[] = [];
  let next = 1;
  const server = createServer((req, res) => {
    const answer = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body === undefined ? '' : JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${options.apiToken}`) return answer(401, { code: 'unauthorized', message: 'bad token' });
    if (req.method === 'GET' && req.url === '/v1/account') return answer(200, { name: 'shop' });
    if (req.method !== 'POST' || req.url !== '/v1/messages') return answer(404, { code: 'not_found' });
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const m = JSON.parse(raw) as { to: string; from: string; body: string; reference: string; callback_url: string };
      references.push(m.reference);
      const last = m.to.at(-1);
      if (last === '3') return answer(400, { code: 'invalid_number', message: `${m.to} is not a number` });
      if (last === '4') return answer(400, { code: 'landline', message: `${m.to} takes no SMS` });
      if (last === '9') return answer(429, { code: 'rate_limited' }, { 'retry-after': '2' });
      const id = `bm_${next++}`;
      accepted.push({ id, to: m.to, body: m.body });
      answer(202, { id, state: 'queued' });
      const report =
        last === '7'
          ? { id, state: 'failed', reason: 'unreachable' }
          : last === '8'
            ? { id, state: 'failed', reason: 'blocked' }
            : { id, state: 'delivered' };
      setTimeout(() => {
        void fetch(m.callback_url, {
          method: 'POST',
          headers: { authorization: `Bearer ${options.callbackToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(report),
        }).catch(() => {});
      }, options.reportAfterMs ?? 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The `reference` of every message posted, in order. */
    references,
    /** Messages accepted, in order. */
    accepted,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
