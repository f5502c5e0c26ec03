import { createFakeClock } from '@spillway/core';
import { SpillwayApiError, createSpillwayClient } from '@spillway/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, LOGIN, PASSWORD, startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// @spillway/client against the reference server on a real port.
let s: RunningFixture;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

const noWait = async () => {};

describe('@spillway/client', () => {
  it('sends with an API key and reads the status through the typed paths', async () => {
    const spillway = createSpillwayClient({ baseUrl: s.url, auth: { apiKey: API_KEY } });
    const sent = await spillway.sendMessages({ messages: [{ type: 'sms', from: 'Acme', to: '+99912345600', text: 'Hello' }] });
    expect(sent.messages).toHaveLength(1);
    const { data, error } = await spillway.GET('/bat/message/{messageId}', {
      params: { path: { messageId: sent.messages[0]!.messageId } },
    });
    expect(error).toBeUndefined();
    expect(data).toMatchObject({ messageId: sent.messages[0]!.messageId, to: '99912345600', type: 'sms' });
  });

  it('leaves out request members that have a default (a cascade without messageType, a bot binding without botName)', async () => {
    // Type-checked as the user writes it: a member with a default is optional in the generated types.
    const spillway = createSpillwayClient({ baseUrl: s.url, auth: { apiKey: API_KEY } });
    const cascade = await spillway.POST('/api/CascadeMessage/send_message/async', {
      body: [{ fromName: 'Acme', toPhone: '99900000000', text: 'Hello' }],
    });
    expect(cascade.error).toBeUndefined();
    expect(cascade.data).toHaveLength(1);
    const bound = await spillway.PUT('/chat_bot/bot_receiver/phone', { body: { phoneNumber: '99900000000', chatId: 42 } });
    expect(bound.response.status).toBe(200);
  });

  it('authenticates with login and password, and with a client token from POST /api/auth', async () => {
    const basic = createSpillwayClient({ baseUrl: s.url, auth: { login: LOGIN, password: PASSWORD } });
    expect((await basic.GET('/bat/balance')).data).toMatchObject({ currency: expect.any(String) });

    const anonymous = createSpillwayClient({ baseUrl: s.url });
    const { data: token } = await anonymous.POST('/api/auth', { body: { login: LOGIN, password: PASSWORD } });
    expect(token?.tokenType).toBe('Bearer');
    const withToken = createSpillwayClient({ baseUrl: s.url, auth: { token: token!.token } });
    expect((await withToken.GET('/bat/balance')).response.status).toBe(200);

    const wrong = createSpillwayClient({ baseUrl: s.url, auth: { apiKey: 'sk_wrong' } });
    const { error, response } = await wrong.GET('/bat/balance');
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ error: 'unauthorized', status: 401 });
    await expect(wrong.sendMessages({ messages: [{ type: 'sms', from: 'Acme', to: '+99912345600', text: 'x' }] })).rejects.toBeInstanceOf(
      SpillwayApiError,
    );
  });

  // Regression: pointed at a host's page rather than the API (a baseUrl without the mount prefix),
  // a send failed with "404 undefined: undefined".
  it("says what answered when an error is not the API's JSON", async () => {
    const html = async () =>
      new Response('<!DOCTYPE html><html><body><pre>Cannot POST /bat/messagelist</pre></body></html>', {
        status: 404,
        headers: { 'content-type': 'text/html; charset=utf-8' },
      });
    const spillway = createSpillwayClient({ baseUrl: 'http://shop.test', auth: { apiKey: API_KEY }, fetch: html });
    const failed = (await spillway
      .sendMessages({ messages: [{ type: 'sms', from: 'Acme', to: '+99912345600', text: 'x' }] })
      .catch((error: unknown) => error)) as SpillwayApiError;
    expect(failed).toBeInstanceOf(SpillwayApiError);
    expect(failed.message).toBe('HTTP 404: Cannot POST /bat/messagelist');
    expect(failed.status).toBe(404);
    expect(failed.body).toBeUndefined();
  });

  it('waits the Retry-After of a 429 and tries again', async () => {
    const clock = createFakeClock();
    const limited = await startServer({ SPILLWAY_RATE_DATA: '1/1' }, { clock });
    try {
      const waits: number[] = [];
      const statuses: number[] = [];
      const spillway = createSpillwayClient({
        baseUrl: limited.url,
        auth: { apiKey: API_KEY },
        fetch: async (input) => {
          const res = await fetch(input);
          statuses.push(res.status);
          return res;
        },
        // The server's time moves by the wait: its bucket refills as it would in real time.
        sleep: async (ms) => {
          waits.push(ms);
          await clock.advance(ms);
        },
      });
      expect((await spillway.GET('/bat/balance')).response.status).toBe(200);
      expect((await spillway.GET('/bat/balance')).response.status).toBe(200);
      expect(statuses).toEqual([200, 429, 200]);
      expect(waits).toEqual([1000]);

      // A client that may not retry answers the 429 as is.
      const once = createSpillwayClient({ baseUrl: limited.url, auth: { apiKey: API_KEY }, retry: { retries: 0 } });
      const { response, error } = await once.GET('/bat/balance');
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(error).toMatchObject({ error: 'rate_limited' });
    } finally {
      await limited.close();
    }
  });

  it('sends again after a lost answer, with the same customerMessageId, and gets the first records back', async () => {
    const bodies: Array<{ messages: Array<{ customerMessageId?: string }> }> = [];
    let lost: { messages: Array<{ messageId: number }> } | undefined;
    const spillway = createSpillwayClient({
      baseUrl: s.url,
      auth: { apiKey: API_KEY },
      sleep: noWait,
      fetch: async (input) => {
        bodies.push((await input.clone().json()) as (typeof bodies)[number]);
        const res = await fetch(input);
        if (!lost) {
          // The server stored the request, but its answer never reaches the client.
          lost = (await res.json()) as typeof lost;
          throw new TypeError('fetch failed');
        }
        return res;
      },
    });
    const sent = await spillway.sendMessages({
      messages: [
        { type: 'sms', from: 'Acme', to: '+99912345600', text: 'Your code is 1234' },
        { type: 'sms', from: 'Acme', to: '+99912345605', text: 'Your code is 5678', customerMessageId: 'own-id-1' },
      ],
    });
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toEqual(bodies[1]);
    expect(bodies[0]!.messages[0]!.customerMessageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(bodies[0]!.messages[1]!.customerMessageId).toBe('own-id-1');
    // The replay answers the records of the first request: nothing was stored or sent twice.
    expect(sent.messages.map((m) => m.messageId)).toEqual(lost!.messages.map((m) => m.messageId));
  });
});
