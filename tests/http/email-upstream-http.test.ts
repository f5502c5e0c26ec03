import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedLog, WARN } from '../support/server-log.ts';
import { startServer } from '../support/server-fixture.ts';
import { freePort } from '../support/server-process.ts';
import type { RunningFixture } from '../support/server-fixture.ts';

// An SMTP failure was answered 200 `{ status: 'failed', error: 'connect ECONNREFUSED 127.0.0.1:2526' }`:
// the caller was not told to retry, and learnt the internal host and port of the mail server.

const json = async (res: Response) => (await res.json()) as any;
const mail = { to: 'anna@example.com', subject: 'Your order', text: 'It shipped.' };

describe('POST /api/email/send when the mail server is unreachable', () => {
  let s: RunningFixture;
  let port: number;
  const log = capturedLog();
  beforeAll(async () => {
    port = await freePort();
    s = await startServer(
      { SPILLWAY_SMTP_URL: `smtp://127.0.0.1:${port}`, SPILLWAY_SMTP_FROM: 'Acme <no-reply@acme.example>' },
      { logger: log.logger },
    );
  });
  afterAll(() => s.close());

  it('answers 503 upstream_unavailable with Retry-After and no internal address; the record is failed and readable', async () => {
    const res = await s.call('/api/email/send', { json: mail });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = await json(res);
    expect(body).toMatchObject({ error: 'upstream_unavailable', status: 503 });
    const text = JSON.stringify(body);
    for (const secret of ['127.0.0.1', String(port), 'ECONNREFUSED']) expect(text).not.toContain(secret);

    // The message names the record, which GET reads as failed, with the same sanitized reason.
    const id = Number(/e-mail (\d+)/.exec(body.message)?.[1]);
    expect(body.message).toContain(`GET /api/email/${id}`);
    const record = await json(await s.call(`/api/email/${id}`));
    expect(record).toMatchObject({ id, status: 'failed', messageId: null, sentAt: null, to: ['anna@example.com'] });
    expect(record.error).toMatch(/mail server/);
    for (const secret of ['127.0.0.1', String(port), 'ECONNREFUSED']) expect(record.error).not.toContain(secret);

    // The operator's log has the detail, under the record's id.
    const line = log.lines.find((l) => l.level === WARN && String(l.msg).includes('e-mail'));
    expect(line).toBeDefined();
    expect(line).toMatchObject({ answer: body.message });
    expect(JSON.stringify(line)).toContain('ECONNREFUSED');
    expect(JSON.stringify(line)).toContain(`127.0.0.1:${port}`);
  });
});

describe('POST /api/email/send when the mail server refuses for now or for good', () => {
  let smtp: SMTPServer;
  let s: RunningFixture;
  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onRcptTo(address, _session, callback) {
        if (address.address === 'busy@example.com')
          callback(Object.assign(new Error('451 try again later (mx-internal.corp:2525)'), { responseCode: 451 }));
        else if (address.address === 'refused@example.com') callback(Object.assign(new Error('550 no such user'), { responseCode: 550 }));
        else callback();
      },
      onData(stream, _session, callback) {
        stream.on('end', () => callback());
        stream.resume();
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const url = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
    s = await startServer({ SPILLWAY_SMTP_URL: url, SPILLWAY_SMTP_FROM: 'Acme <no-reply@acme.example>' });
  });
  afterAll(async () => {
    await s.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('answers a temporary refusal (4xx) as 503 too: retrying later may succeed', async () => {
    const res = await s.call('/api/email/send', { json: { ...mail, to: 'busy@example.com' } });
    expect(res.status).toBe(503);
    const body = await json(res);
    expect(body.error).toBe('upstream_unavailable');
    expect(body.message).not.toContain('mx-internal');
  });

  it('keeps a refusal for good (5xx) a failed record answered 200, with the server’s reply', async () => {
    const res = await s.call('/api/email/send', { json: { ...mail, to: 'refused@example.com' } });
    expect(res.status).toBe(200);
    const record = await json(res);
    expect(record).toMatchObject({ status: 'failed', messageId: null });
    expect(record.error).toContain('550 no such user');
    expect(record.error).not.toContain('127.0.0.1');
  });
});
