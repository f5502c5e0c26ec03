import { describe, expect, it } from 'vitest';
import { serverOnTestDatabase } from '../support/test-database.ts';

// SQLite, and PostgreSQL with SPILLWAY_TEST_STORAGE=postgres and DATABASE_URL.
const s = serverOnTestDatabase('patch_errors');

/** A message scheduled an hour ahead: PATCH applies to it. */
async function scheduled(): Promise<number> {
  const at = new Date(Date.now() + 3_600_000).toISOString();
  const res = await s.call('/bat/messagelist', {
    json: { messages: [{ from: 'Acme', to: '99900000000', type: 'sms', text: 'Hi', scheduledAt: at }] },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { messages: [{ messageId: number }] }).messages[0].messageId;
}
const patch = (id: number, body: unknown, contentType = 'application/json') =>
  s.call(`/bat/message/${id}`, { method: 'PATCH', body: JSON.stringify(body), headers: { 'content-type': contentType } });
const detailsOf = async (res: Response) => {
  expect(res.status).toBe(400);
  return ((await res.json()) as { details: Array<{ path: string; message: string }> }).details;
};

describe(`PATCH /bat/message/{id} names the bad member (${s.database.label})`, () => {
  it('answers an unknown member at its own path, with the member it nearly names, not at (body)', async () => {
    const id = await scheduled();
    expect(await detailsOf(await patch(id, { textt: 'Hello' }))).toEqual([
      { path: 'textt', message: 'unknown member; did you mean "text"?' },
    ]);
    const [other] = await detailsOf(await patch(id, { colour: 'red', text: 'Hello' }));
    expect(other).toMatchObject({ path: 'colour', message: expect.stringContaining('text, ttl, scheduledAt, messageData, fallbacks') });
    expect(await detailsOf(await patch(id, { cancel: true, text: 'Hello' }))).toEqual([
      { path: 'text', message: expect.stringContaining('{ "cancel": true } goes alone') },
    ]);
  });

  it('refuses a JSON Patch array, whatever its content type, saying an object of members is expected', async () => {
    const id = await scheduled();
    const operations = [{ op: 'replace', path: '/text', value: 'Hello' }];
    for (const type of ['application/json-patch+json', 'application/json']) {
      const [detail] = await detailsOf(await patch(id, operations, type));
      expect(detail?.message).toMatch(/object of the members to change.*JSON Patch \(RFC 6902\) array/);
    }
    // The content type itself is one of the interface's JSON types: an object sent with it applies.
    const changed = await patch(id, { text: 'Hello' }, 'application/json-patch+json');
    expect(changed.status, await changed.clone().text()).toBe(200);
    const status = await (await s.call(`/bat/message/${id}`)).json();
    expect(status).toMatchObject({ deliverystatus: 'scheduled' });
  });
});
