import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a callback receiver was sent: its headers and its body as sent (for signature checks). */
export interface CallbackHit {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A client's callback URL on a real port (`path` on it, `/incoming` unless given): records the
 * incoming-message webhooks it is sent, parsed (`bodies`) and as sent with their headers (`hits`),
 * and answers `status` (204 unless given).
 */
export async function startCallbackReceiver(options: { path?: string; status?: number } = {}) {
  const bodies: Array<Record<string, unknown>> = [];
  const hits: CallbackHit[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      hits.push({ headers: req.headers, body: raw });
      bodies.push(JSON.parse(raw) as Record<string, unknown>);
      res.writeHead(options.status ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${options.path ?? '/incoming'}`,
    bodies,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
