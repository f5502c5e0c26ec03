import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { SpillwayError } from '../errors.ts';
import { parseSendRequest, sendRequestSchema } from './send-request.ts';
import type { ValidatedMessage } from './send-request.ts';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const TO = '+4915112345678';
const IMG = 'https://cdn.example.com/a.png';
const VIDEO = 'https://cdn.example.com/v.mp4';
const PDF = { fileUrl: 'https://cdn.example.com/f.pdf', fileName: 'invoice.pdf', fileType: 'pdf' };
const BUTTON = { buttonText: 'Open', buttonAction: 'https://example.com/go' };
const SUGGESTIONS = [{ sugText: 'Open', sugUrl: 'https://example.com/go' }];
const OTP6 = '6c929cef-29b4-4349-bc9d-2a07bdbb6e43';

function msg(extra: Record<string, unknown>): Record<string, unknown> {
  return { from: 'Acme', to: TO, type: 'sms', text: 'Hello', ...extra };
}

function parse(...messages: unknown[]): ValidatedMessage[] {
  return parseSendRequest({ messages }, { now: NOW });
}

/** The error thrown for a request, or fails the test. */
function failure(body: unknown): SpillwayError {
  try {
    parseSendRequest(body, { now: NOW });
  } catch (error) {
    if (error instanceof SpillwayError) return error;
    throw error;
  }
  throw new Error('expected a validation error');
}

function badPaths(...messages: unknown[]): string[] {
  return (failure({ messages }).details ?? []).map((d) => d.path);
}

describe('parseSendRequest: the request', () => {
  it('rejects a body without a messages array at path messages', () => {
    for (const body of [null, [], 'x', {}, { messages: {} }]) {
      const error = failure(body);
      expect(error.code).toBe('validation_failed');
      expect(error.status).toBe(400);
      expect(error.details?.map((d) => d.path)).toEqual(['messages']);
    }
  });

  it('rejects 5001 messages before looking at any item', () => {
    // The items are not even objects: only the count is reported.
    const error = failure({ messages: new Array(5001).fill(42) });
    expect(error.details).toEqual([{ path: 'messages', message: expect.stringContaining('5000') as unknown as string }]);
    expect(failure({ messages: [] }).details?.[0]?.path).toBe('messages');
  });

  it('accepts 5000 messages', () => {
    const messages = Array.from({ length: 5000 }, (_, i) => msg({ to: `99900000${String(i).padStart(4, '0')}` }));
    expect(parse(...messages)).toHaveLength(5000);
  });

  it('lists every bad path of every bad item, and counts the items', () => {
    const error = failure({
      messages: [
        msg({}),
        msg({ to: '12' }),
        msg({ from: '', ttl: 0 }),
        msg({
          type: 'chatapp_otp',
          text: '',
          messageData: { templateId: OTP6, templateLang: 'EN', templateParams: { pin: '1', business_platform_name: 'Acme' } },
        }),
        msg({ fallbacks: [msg({ type: 'fax' }), msg({ to: 'abc', text: '' })] }),
      ],
    });
    expect(error.message).toBe('4 of 5 messages are invalid');
    expect(error.details?.map((d) => d.path)).toEqual([
      'messages[1].to',
      'messages[2].from',
      'messages[2].ttl',
      'messages[3].messageData.templateParams.code_validity_time',
      'messages[4].fallbacks[0].type',
      'messages[4].fallbacks[1].to',
      'messages[4].fallbacks[1].text',
    ]);
  });

  it('reports an unknown or missing type and the shared members of that item', () => {
    expect(badPaths(msg({ type: 'telegram', to: 'x' }))).toEqual(['messages[0].type', 'messages[0].to']);
    const { type: _type, ...noType } = msg({});
    expect(badPaths(noType)).toEqual(['messages[0].type']);
  });

  it('refuses the NUL character (U+0000) in any string of an item, by the path of the first', () => {
    const error = failure({
      messages: [
        msg({ text: 'a\u0000b' }),
        msg({ customerMessageId: '\u0000' }),
        msg({ fallbacks: [{ type: 'sms', from: 'Ac\u0000me', to: TO, text: 'Hi' }] }),
        msg({}),
      ],
    });
    expect(error.code).toBe('validation_failed');
    expect(error.message).toBe('3 of 4 messages are invalid');
    expect(error.details).toEqual([
      { path: 'messages[0].text', message: 'Must not contain the NUL character (U+0000)' },
      { path: 'messages[1].customerMessageId', message: 'Must not contain the NUL character (U+0000)' },
      { path: 'messages[2].fallbacks[0].from', message: 'Must not contain the NUL character (U+0000)' },
    ]);
  });

  it('ignores unknown top-level members', () => {
    const [m] = parse(msg({ priority: 'high' }));
    expect(m?.item).not.toHaveProperty('priority');
  });
});

describe('parseSendRequest: normalization', () => {
  it('normalizes to, ttl, customerMessageId and builds the attempt', () => {
    const [m] = parse(msg({ to: '+4915112345678', ttl: '3600', customerMessageId: '' }));
    expect(m).toMatchObject({ index: 0, customerMessageId: null, ttl: 3600, scheduledAt: null });
    expect(m?.item.to).toBe('4915112345678');
    expect(m?.attempts).toEqual([
      { channel: 'sms', type: 'sms', from: 'Acme', to: '4915112345678', text: 'Hello', ttl: 3600, partsCount: 1 },
    ]);
  });

  it('accepts integer and string ttl within 1..14 days and nothing else', () => {
    expect(parse(msg({ ttl: 1209600 }))[0]?.ttl).toBe(1209600);
    expect(parse(msg({ ttl: null }))[0]?.ttl).toBeNull();
    for (const ttl of [0, 1209601, '1.5', 1.5, '-1', 'abc', '']) expect(badPaths(msg({ ttl }))).toEqual(['messages[0].ttl']);
  });

  it('accepts the simulator test numbers 999 + 6..12 digits', () => {
    expect(parse(msg({ to: '999123456' }))[0]?.item.to).toBe('999123456');
    expect(parse(msg({ to: '+999123456789012' }))[0]?.item.to).toBe('999123456789012');
    expect(badPaths(msg({ to: '99912345' }))).toEqual(['messages[0].to']);
    for (const to of ['+49 151 12345678', '0015112345678', '', '+', 4915112345678])
      expect(badPaths(msg({ to }))).toEqual(['messages[0].to']);
  });

  it('rejects a customerMessageId longer than 64 characters', () => {
    expect(parse(msg({ customerMessageId: 'x'.repeat(64) }))[0]?.customerMessageId).toBe('x'.repeat(64));
    expect(badPaths(msg({ customerMessageId: 'x'.repeat(65) }))).toEqual(['messages[0].customerMessageId']);
  });

  it('counts SMS parts for sms attempts only', () => {
    const [m] = parse(msg({ text: 'a'.repeat(161), fallbacks: [msg({ type: 'chatapp_service', text: 'a'.repeat(400) })] }));
    expect(m?.attempts.map((a) => [a.channel, a.partsCount])).toEqual([
      ['sms', 2],
      ['chatapp', 1],
    ]);
  });

  it('gives the same content whatever the key order and spelling of defaults', () => {
    const a = parse({ text: 'Hi', type: 'sms', to: '+999123456', from: 'A' })[0]!;
    const b = parse({ from: 'A', to: '999123456', type: 'sms', text: 'Hi', ttl: null, customerMessageId: '', extra: 1 })[0]!;
    expect(a.content).toBe(b.content);
    const c = parse({ from: 'A', to: '999123456', type: 'sms', text: 'Hi!' })[0]!;
    expect(c.content).not.toBe(a.content);
  });
});

describe('parseSendRequest: scheduledAt', () => {
  it('takes a future time with an offset as ms', () => {
    expect(parse(msg({ scheduledAt: '2030-01-02T02:00:00+02:00' }))[0]?.scheduledAt).toBe(NOW + 24 * 3600_000);
  });

  it('sends a past time now', () => {
    expect(parse(msg({ scheduledAt: '2029-12-31T00:00:00Z' }))[0]?.scheduledAt).toBeNull();
  });

  it('rejects a time without offset, more than 30 days ahead, or on a fallback', () => {
    expect(badPaths(msg({ scheduledAt: '2030-01-02T00:00:00' }))).toEqual(['messages[0].scheduledAt']);
    expect(badPaths(msg({ scheduledAt: '2030-02-01T00:00:01Z' }))).toEqual(['messages[0].scheduledAt']);
    expect(parse(msg({ scheduledAt: '2030-01-31T00:00:00Z' }))[0]?.scheduledAt).toBe(NOW + 30 * 24 * 3600_000);
    expect(badPaths(msg({ fallbacks: [msg({ scheduledAt: '2030-01-02T00:00:00Z' })] }))).toEqual(['messages[0].fallbacks[0].scheduledAt']);
  });
});

describe('parseSendRequest: scheduledAt and ttl as clients write them', () => {
  it('takes scheduledAt without seconds or with an offset without its colon, normalized to UTC ISO', () => {
    const due = NOW + 24 * 3600_000;
    for (const scheduledAt of ['2030-01-02T00:00Z', '2030-01-02T03:00:00+0300', '2030-01-01T19:00-05']) {
      const [m] = parse(msg({ scheduledAt }));
      expect(m?.scheduledAt, scheduledAt).toBe(due);
      expect(m?.item.scheduledAt).toBe('2030-01-02T00:00:00.000Z');
    }
  });

  it('says why a time without an offset is refused', () => {
    expect(failure({ messages: [msg({ scheduledAt: '2030-01-02T00:00' })] }).details).toEqual([
      { path: 'messages[0].scheduledAt', message: expect.stringMatching(/^scheduledAt has no offset, .*ambiguous/) },
    ]);
  });

  it('tells every refused ttl the 14-day bound, 1e308 included, whatever the type', () => {
    const bound = `ttl is whole seconds from 1 to 1209600 (14 days), as an integer or a string`;
    for (const ttl of [1e308, -1e308, 2 ** 53, 1.5, true, [], '99999999999999999999']) {
      expect(failure({ messages: [msg({ ttl, fallbacks: [msg({ ttl })] })] }).details, String(ttl)).toEqual([
        { path: 'messages[0].ttl', message: bound },
        { path: 'messages[0].fallbacks[0].ttl', message: bound },
      ]);
    }
    // With no usable type the shared members are checked alone: the same message.
    expect(failure({ messages: [msg({ type: 'nope', ttl: 1e308 })] }).details).toContainEqual({ path: 'messages[0].ttl', message: bound });
  });
});

describe('parseSendRequest: fallbacks', () => {
  it('builds one attempt per fallback, in order, with their own ttl', () => {
    const [m] = parse(
      msg({
        type: 'chatapp_promo',
        text: 'Sale',
        ttl: 60,
        fallbacks: [msg({ type: 'rcs', text: 'Sale', ttl: '120' }), msg({ text: 'Sale' })],
      }),
    );
    expect(m?.attempts.map((a) => [a.channel, a.type, a.ttl])).toEqual([
      ['chatapp', 'chatapp_promo', 60],
      ['rcs', 'rcs', 120],
      ['sms', 'sms', null],
    ]);
  });

  it('allows five fallbacks, not six, and no nesting', () => {
    expect(parse(msg({ fallbacks: new Array(5).fill(msg({})) }))[0]?.attempts).toHaveLength(6);
    expect(badPaths(msg({ fallbacks: new Array(6).fill(msg({})) }))).toEqual(['messages[0].fallbacks']);
    expect(badPaths(msg({ fallbacks: [msg({ fallbacks: [msg({})] })] }))).toEqual(['messages[0].fallbacks[0].fallbacks']);
  });

  it('validates a fallback content by its own type', () => {
    expect(badPaths(msg({ fallbacks: [msg({ type: 'chatapp_promo', text: '', messageData: { buttonText: 'x' } })] }))).toEqual([
      'messages[0].fallbacks[0].messageData.buttonAction',
      'messages[0].fallbacks[0].text',
    ]);
  });
});

describe('messageData: chatapp_promo', () => {
  const promo = (text: string, messageData?: Record<string, unknown>) => msg({ type: 'chatapp_promo', text, messageData });

  it.each([
    ['image only', promo('', { img: IMG })],
    ['text only', promo('Sale')],
    ['text + button', promo('Sale', BUTTON)],
    ['image + text + button', promo('Sale', { img: IMG, ...BUTTON })],
    ['video only', promo('', { video: VIDEO, thumbnail: IMG, fileSize: 1000, duration: 10 })],
    ['video + text', promo('Sale', { video: VIDEO })],
    ['video + text + button', promo('Sale', { video: VIDEO, ...BUTTON })],
  ])('accepts %s', (_name, item) => {
    expect(parse(item)).toHaveLength(1);
  });

  it.each([
    ['image + text without button', promo('Sale', { img: IMG }), ['messageData.buttonText']],
    ['button without text', promo('', { img: IMG, ...BUTTON }), ['text']],
    ['half a button', promo('Sale', { buttonText: 'Open' }), ['messageData.buttonAction']],
    ['image + video', promo('', { img: IMG, video: VIDEO }), ['messageData.video']],
    ['thumbnail without video', promo('Sale', { thumbnail: IMG }), ['messageData.thumbnail']],
    ['nothing', promo(''), ['text']],
    ['a non-http URL', promo('', { img: 'ftp://x/a.png' }), ['messageData.img']],
    ['an unknown member', promo('Sale', { imgUrl: IMG }), ['messageData.imgUrl']],
  ])('rejects %s', (_name, item, paths) => {
    expect(badPaths(item)).toEqual(paths.map((p) => `messages[0].${p}`));
  });
});

describe('messageData: chatapp_trans', () => {
  const trans = (text: string | undefined, messageData?: Record<string, unknown>) => msg({ type: 'chatapp_trans', text, messageData });

  it('accepts text only, file + text, and file only (text omitted)', () => {
    expect(parse(trans('Your invoice', undefined), trans('Your invoice', PDF), trans(undefined, PDF))).toHaveLength(3);
  });

  it('rejects a partial file, another file type, an image, and nothing', () => {
    expect(badPaths(trans('x', { fileUrl: PDF.fileUrl }))).toEqual([
      'messages[0].messageData.fileName',
      'messages[0].messageData.fileType',
    ]);
    expect(badPaths(trans('x', { ...PDF, fileType: 'docx' }))).toEqual(['messages[0].messageData.fileType']);
    expect(badPaths(trans('x', { img: IMG }))).toEqual(['messages[0].messageData.img']);
    expect(badPaths(trans(''))).toEqual(['messages[0].text']);
  });
});

describe('messageData: rcs', () => {
  const rcs = (text: string, messageData?: Record<string, unknown>) => msg({ type: 'rcs', text, messageData });
  const card = { text: 'Card', img: IMG, suggestions: SUGGESTIONS };

  it.each([
    ['text', rcs('Hi')],
    ['text + button', rcs('Hi', { suggestions: SUGGESTIONS })],
    ['image + text + button', rcs('Hi', { img: IMG, suggestions: SUGGESTIONS })],
    ['video', rcs('', { video: VIDEO })],
    ['video + text + button', rcs('Hi', { video: VIDEO, suggestions: SUGGESTIONS })],
    ['file', rcs('', { fileUrl: PDF.fileUrl })],
    ['file + text + button', rcs('Hi', { fileUrl: PDF.fileUrl, suggestions: SUGGESTIONS })],
    ['carousel', rcs('', { carousel: [card, { ...card, img: undefined, video: VIDEO }] })],
  ])('accepts %s', (_name, item) => {
    expect(parse(item)).toHaveLength(1);
  });

  it.each([
    ['image without button', rcs('Hi', { img: IMG }), ['messageData.suggestions']],
    ['image + video', rcs('Hi', { video: VIDEO, img: IMG, suggestions: SUGGESTIONS }), ['messageData.video']],
    ['carousel with text', rcs('Hi', { carousel: [card, card] }), ['text']],
    ['carousel of one', rcs('', { carousel: [card] }), ['messageData.carousel']],
    ['nothing', rcs(''), ['text']],
    ['a suggestion without URL', rcs('Hi', { suggestions: [{ sugText: 'Open' }] }), ['messageData.suggestions[0].sugUrl']],
  ])('rejects %s', (_name, item, paths) => {
    expect(badPaths(item)).toEqual(paths.map((p) => `messages[0].${p}`));
  });
});

describe('messageData: other types', () => {
  it('takes a flash call code of 4..8 digits as string or integer, and nothing else', () => {
    const [m] = parse(msg({ type: 'flashcall', text: 123456 }));
    expect(m?.attempts[0]).toMatchObject({ channel: 'flashcall', text: '123456', partsCount: 1 });
    expect(parse(msg({ type: 'flashcall', text: '0042' }))[0]?.attempts[0]?.text).toBe('0042');
    for (const text of ['123', '123456789', 'abcd', 999, 1.5])
      expect(badPaths(msg({ type: 'flashcall', text }))).toEqual(['messages[0].text']);
    expect(badPaths(msg({ type: 'flashcall', text: '1234', messageData: { img: IMG } }))).toEqual(['messages[0].messageData.img']);
  });

  it('rejects messageData on sms, empty sms text, and a too long sms', () => {
    expect(parse(msg({ messageData: {} }), msg({ messageData: null }))).toHaveLength(2);
    expect(badPaths(msg({ messageData: { img: IMG } }), msg({ text: '' }), msg({ text: 'a'.repeat(1601) }))).toEqual([
      'messages[0].messageData.img',
      'messages[1].text',
      'messages[2].text',
    ]);
  });

  it('needs 2..10 survey options', () => {
    const survey = (options: string[]) => msg({ type: 'chatapp_survey', text: 'Rate us', messageData: { survey: { options } } });
    expect(parse(survey(['1', '2', '3', '4', '5']))).toHaveLength(1);
    expect(badPaths(survey(['1']), survey(Array.from({ length: 11 }, String)), msg({ type: 'chatapp_survey', text: 'Q' }))).toEqual([
      'messages[0].messageData.survey.options',
      'messages[1].messageData.survey.options',
      'messages[2].messageData',
    ]);
  });

  it('takes a chatapp carousel of 2..10 image cards with paired buttons', () => {
    const card = { img: IMG, text: 'Card', ...BUTTON };
    expect(parse(msg({ type: 'chatapp_carousel', text: '', messageData: { carousel: [card, card] } }))).toHaveLength(1);
    expect(badPaths(msg({ type: 'chatapp_carousel', messageData: { carousel: [card, { img: IMG, buttonText: 'x' }] } }))).toEqual([
      'messages[0].messageData.carousel[1].buttonAction',
    ]);
  });
});

describe('messageData: chatapp_otp', () => {
  const otp = (templateParams: Record<string, unknown>, templateLang = 'uk', templateId = OTP6) =>
    msg({ type: 'chatapp_otp', text: '', messageData: { templateId, templateLang, templateParams } });

  it('accepts the interface example (integer pin, uk) and renders the template as the text', () => {
    const [m] = parse(otp({ pin: 123456, business_platform_name: 'Acme', code_validity_time: 2 }));
    expect(m?.item.messageData).toEqual({
      templateId: OTP6,
      templateLang: 'UK',
      templateParams: { pin: '123456', business_platform_name: 'Acme', code_validity_time: 2 },
    });
    expect(m?.attempts[0]?.text).toBe('123456 is your verification code for Acme. It is valid for 2 hours.');
  });

  it('reports each bad param, the language and the template by path', () => {
    expect(badPaths(otp({ PIN: '1', business_platform_name: '', code_validity_time: 'two' }))).toEqual([
      'messages[0].messageData.templateParams.pin',
      'messages[0].messageData.templateParams.business_platform_name',
      'messages[0].messageData.templateParams.code_validity_time',
      'messages[0].messageData.templateParams.PIN',
    ]);
    expect(badPaths(otp({ pin: '1', business_platform_name: 'A', code_validity_time: 1 }, 'xx'))).toEqual([
      'messages[0].messageData.templateLang',
    ]);
    expect(badPaths(otp({ pin: '1' }, 'EN', '00000000-0000-0000-0000-000000000000'))).toEqual(['messages[0].messageData.templateId']);
    expect(badPaths(msg({ type: 'chatapp_otp' }))).toEqual(['messages[0].messageData']);
  });
});

describe('sendRequestSchema', () => {
  it('turns into a JSON Schema of the input for OpenAPI', () => {
    const schema = z.toJSONSchema(sendRequestSchema, { io: 'input' }) as unknown as { properties: { messages: { maxItems: number } } };
    expect(schema.properties.messages.maxItems).toBe(5000);
  });
});

describe('parseSendRequest: a member that nearly names a known one is refused, not dropped', () => {
  const meant = (name: string) => `Unknown field; did you mean "${name}"?`;

  it('refuses a misspelt scheduledAt on the common sms (it was sent at once)', () => {
    expect(failure({ messages: [msg({}), msg({ sheduledAt: '2030-01-02T00:00:00Z' })] }).details).toEqual([
      { path: 'messages[1].sheduledAt', message: meant('scheduledAt') },
    ]);
    expect(failure({ messages: [msg({ ScheduledAt: '2030-01-02T00:00:00Z', customerMessageID: 'c-1' })] }).details).toEqual([
      { path: 'messages[0].ScheduledAt', message: meant('scheduledAt') },
      { path: 'messages[0].customerMessageID', message: meant('customerMessageId') },
    ]);
  });

  it('refuses near misses of an item and of its fallbacks beside their other errors', () => {
    const item = msg({ type: 'chatapp_service', form: 'Acme', from: undefined, fallbacks: [msg({ TTL: 60 })], Fallbacks: [] });
    expect(failure({ messages: [item] }).details).toEqual([
      { path: 'messages[0].from', message: expect.any(String) },
      { path: 'messages[0].form', message: meant('from') },
      { path: 'messages[0].Fallbacks', message: meant('fallbacks') },
      { path: 'messages[0].fallbacks[0].TTL', message: meant('ttl') },
    ]);
  });

  it('tells an unknown messageData member what it was meant to be, wherever it is', () => {
    const trans = msg({ type: 'chatapp_trans', text: 'x', messageData: { fileurl: PDF.fileUrl, fileName: 'a.pdf', fileType: 'pdf' } });
    const rcs = msg({ type: 'rcs', text: 'x', messageData: { suggestions: [{ sugtext: 'Open', sugUrl: 'https://example.com/go' }] } });
    const promo = msg({ type: 'chatapp_promo', text: 'Sale', messageData: { imgUrl: IMG } });
    expect(failure({ messages: [trans, rcs, promo] }).details).toEqual([
      { path: 'messages[0].messageData.fileurl', message: meant('fileUrl') },
      { path: 'messages[1].messageData.suggestions[0].sugText', message: expect.any(String) },
      { path: 'messages[1].messageData.suggestions[0].sugtext', message: meant('sugText') },
      { path: 'messages[2].messageData.imgUrl', message: 'Unknown field' },
    ]);
  });

  it('still ignores an unknown member that nearly names none', () => {
    const promo = msg({ type: 'chatapp_promo', text: 'Sale', priority: 'high', messageData: BUTTON });
    const [common, other] = parse(msg({ priority: 'high', campaign: 'spring' }), promo);
    expect(common?.item).not.toHaveProperty('priority');
    expect(other?.item).not.toHaveProperty('priority');
  });
});
