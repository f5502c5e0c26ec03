import { describe, expect, it } from 'vitest';
import { LOGIN, PASSWORD } from '../support/server-fixture.ts';
import { serverOnTestDatabase } from '../support/test-database.ts';

// A JSON body is UTF-8 (RFC 8259). Bytes that are not (a client posting Latin-1 or Windows-1252
// without saying so) were decoded with U+FFFD in their place, then sent and charged: phones got
// "�� bad". They are refused, on the direct send route and on the app's routes alike; a U+FFFD
// written in UTF-8 is text like any other.
const s = serverOnTestDatabase('invalid_utf8');

const bytes = (...parts: Array<string | number[]>): Uint8Array<ArrayBuffer> =>
  new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p)))));

const post = (path: string, body: Uint8Array<ArrayBuffer>, method = 'POST') =>
  s.call(path, { method, body, headers: { 'content-type': 'application/json' } });

const sms = (text: string | number[]) => bytes('{"messages":[{"from":"Acme","to":"99900000000","type":"sms","text":"', text, '"}]}');

describe(`request bodies that are not UTF-8 (${s.database.label})`, () => {
  it('are a 400 on the send route, nothing accepted; the same text in UTF-8 is sent', async () => {
    // "Café" in Latin-1: 0xE9 alone is no UTF-8.
    const latin1 = await post('/bat/messagelist', sms([0x43, 0x61, 0x66, 0xe9]));
    expect(latin1.status).toBe(400);
    expect(await latin1.json()).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/not valid UTF-8/) });

    const utf8 = await post('/bat/messagelist', sms('Café \uFFFD'));
    expect(utf8.status).toBe(200);
    const sent = (await utf8.json()) as { messages: Array<{ messageId: number }> };
    const status = await (await s.call(`/bat/message/${sent.messages[0]!.messageId}`)).json();
    expect(JSON.stringify(status)).not.toContain('Caf\uFFFD');
  });

  it('are a 400 on the app routes too: a cascade, an operator, and a body that is optional', async () => {
    const cascade = await post(
      '/api/CascadeMessage/send_message/async',
      bytes('[{"fromName":"Acme","toPhone":"99900000000","text":"Caf', [0xe9], '"}]'),
    );
    expect(cascade.status).toBe(400);
    expect(await cascade.json()).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/not valid UTF-8/) });

    const company = (await (
      await s.call('/api/company/get-token', { auth: 'none', json: { login: LOGIN, password: PASSWORD } })
    ).json()) as string;
    const asCompany = (path: string, body: Uint8Array<ArrayBuffer>) =>
      s.call(path, {
        method: 'POST',
        auth: 'none',
        body,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${company}` },
      });
    const operator = await asCompany('/api/company/operators', bytes('{"name":"Ren', [0xe9], 'e"}'));
    expect(operator.status).toBe(400);
    expect(await operator.json()).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/not valid UTF-8/) });
    expect(
      await (await s.call('/api/company/operators', { auth: 'none', headers: { authorization: `Bearer ${company}` } })).json(),
    ).toEqual([]);

    // revoke-token's body is optional (none revokes the caller's own token): it is read the same way.
    const revoke = await asCompany('/api/company/revoke-token', bytes('{"token":"', [0xff], '"}'));
    expect(revoke.status).toBe(400);
    expect(await revoke.json()).toMatchObject({ error: 'bad_request', message: expect.stringMatching(/not valid UTF-8/) });
  });
});
