import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local Telegram Bot API for tests, with the documented request and error shapes. The token
 * `bad` is refused (401); chat ids ending in 403 have blocked the bot, 400 are unknown chats,
 * 429 are rate limited (`retry_after` 3), 500 fail; any other chat gets the message.
 */
export interface TestBotApi {
  url: string;
  requests: { token: string; method: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export async function startBotApi(): Promise<TestBotApi> {
  const requests: TestBotApi['requests'] = [];
  let nextId = 1;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const fail = (code: number, description: string, parameters?: unknown) =>
        reply(code, { ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) });
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (!m) return fail(404, 'Not Found');
      const [, token, method] = m as unknown as [string, string, string];
      if (token === 'bad') return fail(401, 'Unauthorized');
      if (method === 'getMe')
        return reply(200, { ok: true, result: { id: 42, is_bot: true, first_name: 'Spillway', username: 'spillway_test_bot' } });
      const body = (chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {}) as Record<string, unknown>;
      requests.push({ token, method, body });
      if (method !== 'sendMessage' && method !== 'sendPhoto') return fail(404, 'Not Found: method not found');
      const chat = String(body['chat_id']);
      if (chat.endsWith('403')) return fail(403, 'Forbidden: bot was blocked by the user');
      if (chat.endsWith('400')) return fail(400, 'Bad Request: chat not found');
      if (chat.endsWith('429')) return fail(429, 'Too Many Requests: retry after 3', { retry_after: 3 });
      if (chat.endsWith('500')) return fail(500, 'Internal Server Error');
      if (method === 'sendMessage' && !body['text']) return fail(400, 'Bad Request: message text is empty');
      reply(200, { ok: true, result: { message_id: nextId++, chat: { id: Number(chat), type: 'private' }, date: 0 } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
