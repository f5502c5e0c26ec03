import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * An HTTP endpoint for the webhook driver's test, speaking the driver's documented contract: it
 * verifies the Standard Webhooks signature, answers by the recipient's last two digits (`58` 429
 * with Retry-After 7, `50` 503, `03` 422 not_on_channel, `33` 400), accepts anything else with an
 * id and, 20 ms later, posts a signed receipt to `receiptUrl` (`02` failed undeliverable, `04`
 * none, else delivered), retrying until it is answered 2xx.
 */
export interface TestWebhookEndpoint {
  url: string;
  /** `webhook-id`s of the attempts received (the idempotency keys). */
  ids: string[];
  bodies: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startWebhookEndpoint(options: { secret: string; receiptUrl: () => string }): Promise<TestWebhookEndpoint> {
  const wh = new Webhook(options.secret);
  const ids: string[] = [];
  const bodies: Record<string, unknown>[] = [];
  let next = 1;
  let closing = false;

  const postReceipt = async (receipt: Record<string, unknown>): Promise<void> => {
    const body = JSON.stringify(receipt);
    const id = `rcpt-${next++}`;
    const now = new Date();
    for (let i = 0; i < 50 && !closing; i++) {
      const res = await fetch(options.receiptUrl(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': wh.sign(id, now, body),
        },
        body,
      }).catch(() => null);
      if (res?.ok) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      if (req.method === 'HEAD') return void res.writeHead(200).end();
      let attempt: Record<string, unknown>;
      try {
        attempt = wh.verify(raw, {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        }) as Record<string, unknown>;
      } catch {
        return reply(401, { error: 'bad signature' });
      }
      ids.push(String(req.headers['webhook-id']));
      bodies.push(attempt);
      const to = String(attempt['to']);
      switch (to.slice(-2)) {
        case '58':
          return reply(429, { error: 'slow down' }, { 'retry-after': '7' });
        case '50':
          return reply(503, { error: 'maintenance' });
        case '03':
          return reply(422, { error: 'no account on this channel', failure: 'not_on_channel' });
        case '33':
          return reply(400, { error: 'bad sender' });
      }
      const providerId = `prov-${next++}`;
      reply(202, { id: providerId });
      const outcome = to.slice(-2);
      if (outcome === '04') return;
      setTimeout(() => {
        void postReceipt(
          outcome === '02'
            ? { providerMessageId: providerId, status: 'failed', failure: 'undeliverable', error: 'handset unreachable' }
            : { messageId: attempt['messageId'], step: attempt['step'], status: 'delivered' },
        );
      }, 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/send`,
    ids,
    bodies,
    async close() {
      closing = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
