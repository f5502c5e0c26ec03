import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A client's callback URL on a real port: records the incoming-message webhooks it is sent. */
export async function startCallbackReceiver() {
  const bodies: Array<Record<string, unknown>> = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(raw) as Record<string, unknown>);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/incoming`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
