import { describe, expect, it } from 'vitest';
import { createHttpApp } from './app.ts';
import { wellFormedCopy } from '@spillway/core/adapter';
import { isJsonContentType, parseJsonBody } from './read-json.ts';
import { FAKE_KEY, createFakeEngine } from './testing/fake-engine.ts';

const quiet = { info() {}, warn() {}, error() {} };

function setup(maxBodyBytes?: number) {
  const engine = createFakeEngine();
  const app = createHttpApp({ engine, defaultMetrics: false, logger: quiet, ...(maxBodyBytes ? { maxBodyBytes } : {}) });
  return { engine, app };
}

const send = (app: ReturnType<typeof setup>['app'], body: BodyInit, contentType?: string, extra: Record<string, string> = {}) =>
  app.request('/bat/messagelist', {
    method: 'POST',
    body,
    headers: { 'X-Authorization-Key': FAKE_KEY, ...(contentType ? { 'Content-Type': contentType } : {}), ...extra },
  });

describe('request bodies', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json-patch+json',
    'text/json',
    'text/json;charset=UTF-8',
    'application/vnd.spillway+json',
    'APPLICATION/JSON',
    'application/json; charset="utf-8"',
    'application/json;charset=utf8',
  ])('accepts %s', async (type) => {
    const { app, engine } = setup();
    const res = await send(app, JSON.stringify({ messages: [] }), type);
    expect(res.status).toBe(200);
    expect(engine.calls.sends).toEqual([{ accountId: 7, body: { messages: [] } }]);
  });

  // JSON is UTF-8 (RFC 8259): a body declared in another charset would be read wrong, not refused.
  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/jsonx',
    'multipart/form-data; boundary=x',
    undefined,
    'application/json; charset=iso-8859-1',
    'text/json; charset="windows-1251"',
  ])('answers 415 for %s', async (type) => {
    const { app, engine } = setup();
    const res = await send(app, JSON.stringify({ messages: [] }), type);
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ error: 'unsupported_media_type', status: 415 });
    expect(engine.calls.sends).toHaveLength(0);
  });

  it.each([['{"messages": ['], ['not json'], ['']])('answers 400 bad_request for the malformed body %j', async (body) => {
    const { app } = setup();
    const res = await send(app, body, 'application/json');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'bad_request', status: 400 });
  });

  it('answers 400 validation_failed at its path for the NUL character in a string or a member name, and takes an escaped backslash before u0000', async () => {
    const { app, engine } = setup();
    for (const [body, path] of [
      [{ messages: [{ from: 'Acme', text: 'a\u0000b' }] }, 'messages[0].text'],
      [{ messages: [{}, { data: { 'k\u0000': 1 } }] }, 'messages[1].data.k\u0000'],
      ['\u0000', '(body)'],
    ] as const) {
      const res = await send(app, JSON.stringify(body), 'application/json');
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: 'validation_failed',
        details: [{ path, message: 'Must not contain the NUL character (U+0000)' }],
      });
    }
    expect(engine.calls.sends).toHaveLength(0);
    // A backslash and the letters u0000 are text like any other.
    const res = await send(app, JSON.stringify({ messages: [], note: '\\u0000' }), 'application/json');
    expect(res.status).toBe(200);
    expect(engine.calls.sends).toEqual([{ accountId: 7, body: { messages: [], note: '\\u0000' } }]);
  });

  it('answers 413 when Content-Length is over the limit, before reading', async () => {
    const { app, engine } = setup(100);
    const body = JSON.stringify({ messages: [{ text: 'x'.repeat(200) }] });
    const res = await send(app, body, 'application/json', { 'Content-Length': String(body.length) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'payload_too_large', status: 413 });
    expect(engine.calls.sends).toHaveLength(0);
  });

  it('answers 413 for a streamed body without Content-Length that grows over the limit', async () => {
    const { app, engine } = setup(1000);
    const chunk = new TextEncoder().encode('x'.repeat(300));
    let pushed = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pushed++ < 10) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const req = new Request('http://localhost/bat/messagelist', {
      method: 'POST',
      body: stream,
      headers: { 'X-Authorization-Key': FAKE_KEY, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      duplex: 'half',
    } as RequestInit);
    const res = await app.request(req);
    expect(res.status).toBe(413);
    expect(engine.calls.sends).toHaveLength(0);
  });

  it('passes a body just under the limit', async () => {
    const { app } = setup(1000);
    const body = JSON.stringify({ messages: [], pad: 'x'.repeat(900) });
    expect((await send(app, body, 'application/json')).status).toBe(200);
  });
});

describe('isJsonContentType', () => {
  it('rejects look-alikes', () => {
    expect(isJsonContentType('application/json+xml')).toBe(false);
    expect(isJsonContentType('application/+json')).toBe(false);
    expect(isJsonContentType(null)).toBe(false);
  });
});

describe('parseJsonBody', () => {
  // The engine's entry points make strings well-formed for their other callers; a body made so
  // here is marked, so that a 5000-message send is not walked a second time.
  it('answers the body marked well-formed, which the engine then takes as it is', () => {
    const body = parseJsonBody('{"messages":[{"text":"a \\ud800 b"}],"k\\udc00":1}') as { messages: Array<{ text: string }> };
    expect(body).toEqual({ messages: [{ text: 'a \uFFFD b' }], 'k\uFFFD': 1 });
    const plain = parseJsonBody('{"text":"plain"}') as { text: string };
    // Taken as it is, even were it changed afterwards (nobody does).
    plain.text = 'x\ud800';
    expect(wellFormedCopy(plain)).toBe(plain);
    expect(wellFormedCopy({ text: 'x\ud800' })).toEqual({ text: 'x\uFFFD' });
  });
});
