import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { createSpillwayClient } from './client.ts';
import { SpillwayNetworkError } from './network-error.ts';

/** A port of 127.0.0.1 that nothing listens on: one the system just gave out, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Regression: with the server down, a call failed with "fetch failed" and nothing else; the
// reason (connection refused, and where) was hidden in the error's `cause`.
it('names the request and the cause when the server is unreachable', async () => {
  const port = await closedPort();
  const spillway = createSpillwayClient({ baseUrl: `http://127.0.0.1:${port}`, auth: { apiKey: 'sk_x' }, sleep: async () => {} });
  const failed = await spillway.GET('/bat/balance').catch((error: unknown) => error);
  expect(failed).toBeInstanceOf(SpillwayNetworkError);
  expect(failed).toMatchObject({
    message: `GET http://127.0.0.1:${port}/bat/balance: fetch failed (connect ECONNREFUSED 127.0.0.1:${port})`,
    code: 'ECONNREFUSED',
    method: 'GET',
    url: `http://127.0.0.1:${port}/bat/balance`,
    cause: expect.objectContaining({ message: 'fetch failed' }),
  });

  // The idempotent send retries it, then throws it as well; the query (a message's text) is left out.
  const send = await spillway
    .sendMessages({ messages: [{ type: 'sms', from: 'Acme', to: '+99912345600', text: 'x' }] }, { retries: 1 })
    .catch((error: unknown) => error);
  expect(send).toMatchObject({ code: 'ECONNREFUSED', method: 'POST', url: `http://127.0.0.1:${port}/bat/messagelist` });
  const query = await spillway
    .POST('/ip2sms', { params: { query: { from: 'Acme', to: '99900000000', text: 'secret code 1234' } } })
    .catch((error: unknown) => error as Error);
  expect((query as Error).message).not.toContain('secret');
});

it('passes an abort as it is', async () => {
  const port = await closedPort();
  const aborted = new DOMException('The operation was aborted.', 'AbortError');
  const spillway = createSpillwayClient({ baseUrl: `http://127.0.0.1:${port}`, fetch: () => Promise.reject(aborted) });
  await expect(spillway.GET('/health')).rejects.toBe(aborted);
});
