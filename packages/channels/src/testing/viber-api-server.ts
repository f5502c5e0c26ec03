import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { viberSignature } from '../viber/viber.ts';

/**
 * A local Viber REST bot API for tests: `send_message` checks `X-Viber-Auth-Token` (`bad` is
 * status 2), answers by the receiver's last two digits (`05` receiverNotRegistered, `06`
 * notSubscribed, `12` tooManyRequests, `99` a general error, `50` HTTP 500), and for messages it
 * takes posts signed `delivered` then `seen` callbacks (`02`: `failed`) to `callbackUrl`,
 * retried until answered 2xx.
 */
export interface TestViberApi {
  url: string;
  sent: { token: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export async function startViberApi(options: { callbackUrl: () => string }): Promise<TestViberApi> {
  const sent: TestViberApi['sent'] = [];
  let next = 5_098_034_272_017_990;
  let closing = false;

  const callback = async (token: string, event: Record<string, unknown>) => {
    const body = JSON.stringify({ timestamp: Date.now(), chat_hostname: 'SN-CHAT-01_', ...event });
    for (let i = 0; i < 50 && !closing; i++) {
      const res = await fetch(options.callbackUrl(), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-viber-content-signature': viberSignature(token, body) },
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
      const reply = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const token = String(req.headers['x-viber-auth-token'] ?? '');
      if (token === 'bad' || !token) return reply(200, { status: 2, status_message: 'invalidAuthToken' });
      if (req.url === '/get_account_info') return reply(200, { status: 0, status_message: 'ok', name: 'Spillway Test Bot' });
      if (req.url !== '/send_message') return reply(404, { status: 1, status_message: 'invalidUrl' });
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
      sent.push({ token, body });
      const receiver = String(body['receiver']);
      switch (receiver.slice(-2)) {
        case '05':
          return reply(200, { status: 5, status_message: 'receiverNotRegistered' });
        case '06':
          return reply(200, { status: 6, status_message: 'notSubscribed' });
        case '12':
          return reply(200, { status: 12, status_message: 'tooManyRequests' });
        case '99':
          return reply(200, { status: 99, status_message: 'generalError' });
        case '50':
          return reply(500, {});
      }
      const messageToken = next++;
      reply(200, { status: 0, status_message: 'ok', message_token: messageToken, chat_hostname: 'SN-CHAT-01_' });
      setTimeout(() => {
        void (async () => {
          if (receiver.endsWith('02'))
            return callback(token, { event: 'failed', message_token: messageToken, user_id: receiver, desc: 'unsupported device' });
          await callback(token, { event: 'delivered', message_token: messageToken, user_id: receiver });
          await callback(token, { event: 'seen', message_token: messageToken, user_id: receiver });
        })();
      }, 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    async close() {
      closing = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
