import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/server-fixture.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

let s: RunningFixture;
beforeAll(async () => {
  s = await startServer({}, { designerDir: false });
});
afterAll(() => s.close());

const form = (params: Record<string, string>) =>
  s.call('/ip2sms', {
    method: 'POST',
    body: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
const pathsOf = async (res: Response) => {
  expect(res.status).toBe(400);
  return ((await res.json()) as { details: Array<{ path: string }> }).details.map((d) => d.path);
};

describe('POST /ip2sms errors name the parameter as the client sent it', () => {
  it('says `sender`, not `from`, for a sender that is not an approved alpha-name', async () => {
    expect(await pathsOf(await form({ sender: 'Nope', phone: '99900000000', message: 'hi' }))).toEqual(['sender']);
  });

  it('says `sender` and `message` for empty ones, and `phone[i]` for a bad one of several numbers', async () => {
    expect(await pathsOf(await form({ sender: '', phone: '99900000000', message: '' }))).toEqual(['sender', 'message']);
    expect(await pathsOf(await form({ sender: 'Acme', phone: '99900000000,12', message: 'hi' }))).toEqual(['phone[1]']);
    expect(await pathsOf(await form({ sender: 'Acme', phone: '12', message: 'hi' }))).toEqual(['phone']);
  });

  it('keeps the interface names for a client that sent them, in a JSON body too', async () => {
    expect(await pathsOf(await s.call('/ip2sms', { json: { from: 'Nope', to: '99900000000', text: 'hi' } }))).toEqual(['from']);
    expect(await pathsOf(await s.call('/ip2sms', { json: { sender: 'Nope', to: '12', text: 'hi' } }))).toEqual(['to', 'sender']);
  });
});
