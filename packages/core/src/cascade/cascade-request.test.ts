import { describe, expect, it } from 'vitest';
import { chatappMessageSchema, messengerMessageSchema, parseCascadeRequest } from './cascade-request.ts';
import { checkCascadeVariables } from './cascade-variables.ts';
import { SpillwayError } from '../errors.ts';

const now = Date.UTC(2026, 0, 1);
const base = { id: 'c-1', fromName: 'Shop', toPhone: '+99912345600', messageType: 'transaction', chatappMessage: { text: 'Hello' } };

function detailsOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(SpillwayError);
    expect((e as SpillwayError).code).toBe('validation_failed');
    return (e as SpillwayError).details ?? [];
  }
  throw new Error('expected a validation error');
}

describe('parseCascadeRequest', () => {
  it('normalizes an array item', () => {
    const [c] = parseCascadeRequest(
      [{ ...base, ttl: '600', sheduledSent: '2026-01-02T10:00:00+02:00', wheterCheckSession: true, customerData: { type: 'vip' } }],
      { now },
    );
    expect(c).toMatchObject({
      index: 0,
      path: '[0]',
      trackinId: 'c-1',
      fromName: 'Shop',
      toPhone: '99912345600',
      messageType: 'transaction',
      ttl: 600,
      scheduledAt: Date.UTC(2026, 0, 2, 8),
      checkSession: true,
      customerData: { type: 'vip' },
      chatappMessage: { text: 'Hello' },
      variables: [],
    });
  });

  it('applies the messageType rules', () => {
    expect(detailsOf(() => parseCascadeRequest([{ ...base, messageType: 'promo' }], { now })).map((d) => d.path)).toEqual([
      '[0].buttonText',
      '[0].buttonAction',
    ]);
    const promo = parseCascadeRequest([{ ...base, messageType: 'promo', buttonText: 'Buy', buttonAction: 'https://shop.example/x' }], {
      now,
    });
    expect(promo[0]?.buttonAction).toBe('https://shop.example/x');
    expect(detailsOf(() => parseCascadeRequest([{ ...base, messageType: 'chatapp_survey' }], { now }))[0]?.path).toBe(
      '[0].chatappMessage.survey.options',
    );
    const survey = parseCascadeRequest(
      [{ ...base, messageType: 'chatapp_survey', chatappMessage: { text: 'How?', survey: { options: ['👍 good', '😐', '👎 bad'] } } }],
      { now },
    );
    expect(survey[0]?.chatappMessage?.survey?.options).toEqual(['👍 good', '😐', '👎 bad']);
    expect(
      detailsOf(() => parseCascadeRequest([{ fromName: 'Shop', toPhone: '99912345600', messageType: 'flashcall' }], { now }))[0]?.path,
    ).toBe('[0].flashcallText');
    expect(
      parseCascadeRequest([{ fromName: 'Shop', toPhone: '99912345600', messageType: 'flashcall', flashcallText: 1234 }], { now })[0]
        ?.flashcallText,
    ).toBe('1234');
    expect(detailsOf(() => parseCascadeRequest([{ fromName: 'Shop', toPhone: '99912345600' }], { now }))[0]?.path).toBe('[0].text');
  });

  it('reads route (a Spillway extension) as an id or id@revision, from an item or the overview', () => {
    const [byId, byRevision, none] = parseCascadeRequest(
      [
        { ...base, id: 'r-1', route: 'messenger-first' },
        { ...base, id: 'r-2', route: 'rt_a@12' },
        { ...base, id: 'r-3', route: null },
      ],
      { now },
    );
    expect(byId?.route).toEqual({ ref: 'messenger-first', id: 'messenger-first', revision: null });
    expect(byRevision?.route).toEqual({ ref: 'rt_a@12', id: 'rt_a', revision: 12 });
    expect(none?.route).toBeNull();
    const overview = parseCascadeRequest(
      {
        fromName: 'Shop',
        route: 'rt_a',
        messages: [
          { recipient: '99912345600', text: 'Hi' },
          { recipient: '99912345600', text: 'Hi', route: 'default@1' },
        ],
      },
      { now },
    );
    expect(overview.map((m) => m.route?.ref)).toEqual(['rt_a', 'default@1']);
    const bad = ['', 'rt_a@', 'rt_a@b@12', 'rt_a@0', 'rt_a@01', 'rt_a@x', '@2', 'r'.repeat(101), 'rt_a@2147483648', 7];
    const details = detailsOf(() =>
      parseCascadeRequest(
        bad.map((route) => ({ ...base, id: undefined, route })),
        { now },
      ),
    );
    expect(details.map((d) => d.path)).toEqual(bad.map((_, i) => `[${i}].route`));
    expect(details[0]?.message).toMatch(/^must be a route id, or id@revision/);
    expect(details.at(-2)?.message).toBe('the revision must be at most 2147483647');
  });

  it('lists every bad item with its path and rejects the request whole', () => {
    const details = detailsOf(() =>
      parseCascadeRequest(
        [base, { ...base, toPhone: 'abc' }, { ...base, id: 'c-3' }, { ...base, sheduledSent: '2026-01-02T10:00:00', messageType: 'sms' }],
        {
          now,
        },
      ),
    );
    expect(details.map((d) => d.path)).toEqual(['[1].toPhone', '[3].messageType', '[3].sheduledSent']);
    expect(detailsOf(() => parseCascadeRequest([], { now }))[0]?.path).toBe('(body)');
    expect(
      detailsOf(() =>
        parseCascadeRequest(
          Array.from({ length: 5001 }, () => base),
          { now },
        ),
      )[0]?.message,
    ).toContain('5000');
    expect(
      parseCascadeRequest(
        Array.from({ length: 5000 }, (_, i) => ({ ...base, id: `c-${i}` })),
        { now },
      ),
    ).toHaveLength(5000);
    expect(detailsOf(() => parseCascadeRequest([{ ...base, sheduledSent: '2028-01-01T00:00:00Z' }], { now }))[0]?.path).toBe(
      '[0].sheduledSent',
    );
  });

  it('takes a lone object as one message', () => {
    expect(parseCascadeRequest(base, { now })).toHaveLength(1);
  });

  it('refuses a variable given twice in one message (1 and "1" are one id) at the repeat', () => {
    const item = { fromName: 'Shop', toPhone: '99912345600', text: 'Hi %name=1%' };
    const twice = [
      { id: 1, value: 'Ann' },
      { id: 'x', value: 'y' },
      { id: '1', value: 'Bob' },
    ];
    expect(detailsOf(() => parseCascadeRequest([{ ...item, variables: twice }], { now }))).toEqual([
      { path: '[0].variables[2].id', message: 'variable 1 is given twice' },
    ]);
    const overview = { fromName: 'Shop', messages: [{ recipient: '99912345600', text: 'Hi %name=1%', variables: twice }] };
    expect(detailsOf(() => parseCascadeRequest(overview, { now })).map((d) => d.path)).toEqual(['messages[0].variables[2].id']);
  });

  it('maps the overview shape, with top-level defaults and the default alpha-name', () => {
    const body = {
      ttl: 300,
      messages: [
        { recipient: '99912345600', text: 'Hi %name=1%', variables: [{ id: 1, value: 'Ann' }] },
        { recipient: 99912345601, text: 'Yo', fromName: 'Other' },
      ],
    };
    const out = parseCascadeRequest(body, { now, defaultFromName: 'Shop' });
    expect(out.map((c) => [c.path, c.fromName, c.toPhone, c.ttl, c.text, c.messageType])).toEqual([
      ['messages[0]', 'Shop', '99912345600', 300, 'Hi %name=1%', 'transaction'],
      ['messages[1]', 'Other', '99912345601', 300, 'Yo', 'transaction'],
    ]);
    expect(out[0]?.variables).toEqual([{ id: '1', value: 'Ann' }]);
    const details = detailsOf(() => parseCascadeRequest({ messages: [{ recipient: 'x', text: 'a' }, { text: 'b' }] }, { now }));
    expect(details.map((d) => d.path)).toEqual(['messages[1].recipient']);
    const noFrom = detailsOf(() => parseCascadeRequest({ messages: [{ recipient: '99912345600', text: 'a' }] }, { now }));
    expect(noFrom).toEqual([{ path: 'messages[0].fromName', message: expect.stringContaining('fromName') }]);
    expect(
      detailsOf(() => parseCascadeRequest({ messages: [{ recipient: '1', text: 'a' }] }, { now, defaultFromName: 'S' }))[0]?.path,
    ).toBe('messages[0].recipient');
  });
});

describe('parseCascadeRequest: audit fixes', () => {
  it('rejects a client id used twice in one request, naming every repeat', () => {
    const details = detailsOf(() => parseCascadeRequest([base, { ...base, id: 'c-2' }, base, { ...base, id: 'c-2' }], { now }));
    expect(details).toEqual([
      { path: '[2].id', message: 'id "c-1" is already used by [0] of this request' },
      { path: '[3].id', message: 'id "c-2" is already used by [1] of this request' },
    ]);
    expect(parseCascadeRequest([base, { ...base, id: undefined }, { ...base, id: undefined }], { now })).toHaveLength(3);
  });

  it('needs 2 to 10 survey options, like the messaging API', () => {
    const survey = (options: string[]) => [
      { ...base, messageType: 'chatapp_survey', chatappMessage: { text: 'How?', survey: { options } } },
    ];
    expect(detailsOf(() => parseCascadeRequest(survey(['only']), { now }))[0]?.path).toBe('[0].chatappMessage.survey.options');
    expect(parseCascadeRequest(survey(['yes', 'no']), { now })).toHaveLength(1);
  });
});

describe('parseCascadeRequest: sheduledSent and ttl as clients write them', () => {
  it('reads sheduledSent without seconds or with an offset without its colon, in both shapes', () => {
    const due = Date.UTC(2026, 0, 2, 17);
    for (const sheduledSent of ['2026-01-02T17:00Z', '2026-01-02T20:00:00+0300', '2026-01-02T12:00-05', '2026-01-02T17:00:00.000Z']) {
      expect(parseCascadeRequest([{ ...base, sheduledSent }], { now })[0]?.scheduledAt, sheduledSent).toBe(due);
    }
    const overview = { fromName: 'Shop', sheduledSent: '2026-01-02T20:00+0300', messages: [{ recipient: '99912345600', text: 'a' }] };
    expect(parseCascadeRequest(overview, { now })[0]?.scheduledAt).toBe(due);
  });

  it('refuses a sheduledSent without an offset once, at the member that holds it, saying why', () => {
    const noOffset = /^has no offset, and a time without one is ambiguous/;
    expect(detailsOf(() => parseCascadeRequest([{ ...base, sheduledSent: '2026-01-02T17:00' }], { now }))).toEqual([
      { path: '[0].sheduledSent', message: expect.stringMatching(noOffset) },
    ]);
    const overview = {
      fromName: 'Shop',
      sheduledSent: '2026-01-02T17:00:00',
      messages: [
        { recipient: '99912345600', text: 'a' },
        { recipient: '99912345601', text: 'b' },
      ],
    };
    expect(detailsOf(() => parseCascadeRequest(overview, { now }))).toEqual([
      { path: 'sheduledSent', message: expect.stringMatching(noOffset) },
    ]);
  });

  it('tells every refused ttl the 30-day bound, 1e308 included', () => {
    const bound = expect.stringMatching(/^must be whole seconds from 1 to 2592000 \(30 days\)/);
    for (const ttl of [1e308, -1e308, 2 ** 53, '9'.repeat(400), '99999999999999999999', 2_592_001, 0, -1, 1.5, '1.5', 'abc', true]) {
      expect(
        detailsOf(() => parseCascadeRequest([{ ...base, ttl }], { now })),
        String(ttl),
      ).toEqual([{ path: '[0].ttl', message: bound }]);
    }
    for (const ttl of [1e308, 2_592_001, 0, 1.5, '60']) {
      expect(
        detailsOf(() => parseCascadeRequest([{ ...base, chatappMessage: { text: 'Hi', ttl } }], { now })),
        String(ttl),
      ).toEqual([{ path: '[0].chatappMessage.ttl', message: bound }]);
    }
    const overview = { fromName: 'Shop', ttl: 1e308, messages: [{ recipient: '99912345600', text: 'a' }] };
    expect(detailsOf(() => parseCascadeRequest(overview, { now }))).toEqual([{ path: 'ttl', message: bound }]);
    expect(parseCascadeRequest([{ ...base, ttl: '2592000' }], { now })[0]?.ttl).toBe(2_592_000);
  });
});

describe('parseCascadeRequest: a member that nearly names a known one is refused, not dropped', () => {
  const odd = '(the interface spells it so)';

  it('refuses "scheduledSent" and "whetherCheckSession", the spellings users fix the interface\'s into', () => {
    const item = { ...base, scheduledSent: '2026-01-02T00:00:00Z', whetherCheckSession: true };
    expect(detailsOf(() => parseCascadeRequest([item], { now }))).toEqual([
      { path: '[0].scheduledSent', message: `unknown member; did you mean "sheduledSent"? ${odd}` },
      { path: '[0].whetherCheckSession', message: `unknown member; did you mean "wheterCheckSession"? ${odd}` },
    ]);
  });

  it('refuses a member equal to a known one but for case, and one 1 edit from a short name', () => {
    expect(detailsOf(() => parseCascadeRequest([{ ...base, FromName: 'Shop', tttl: 60 }], { now }))).toEqual([
      { path: '[0].FromName', message: 'unknown member; did you mean "fromName"?' },
      { path: '[0].tttl', message: 'unknown member; did you mean "ttl"?' },
    ]);
  });

  it('still ignores an unknown member that nearly names none (fields of the client or of other DTOs)', () => {
    const [c] = parseCascadeRequest([{ ...base, messageId: 'm-1', priority: 'high', trackinId: 'x', botName: 'b' }], { now });
    expect(c).toMatchObject({ trackinId: 'c-1', toPhone: '99912345600' });
  });

  it('refuses near misses at the overview top level and in its messages, at their paths', () => {
    const body = {
      fromName: 'Shop',
      scheduledSent: '2026-01-02T00:00:00Z',
      messages: [{ recipient: '99912345600', text: 'a', Variables: [] }],
    };
    expect(detailsOf(() => parseCascadeRequest(body, { now }))).toEqual([
      { path: 'scheduledSent', message: `unknown member; did you mean "sheduledSent"? ${odd}` },
      { path: 'messages[0].Variables', message: 'unknown member; did you mean "variables"?' },
    ]);
    // A misspelt recipient is told so beside the missing one.
    expect(detailsOf(() => parseCascadeRequest({ fromName: 'Shop', messages: [{ recipent: '99912345600', text: 'a' }] }, { now }))).toEqual(
      [
        { path: 'messages[0].recipient', message: expect.any(String) },
        { path: 'messages[0].recipent', message: 'unknown member; did you mean "recipient"?' },
      ],
    );
  });

  it('refuses near misses in chatappMessage and messengerMessage, keeping their other members', () => {
    const item = { ...base, chatappMessage: { Text: 'Hi', fallbackTxt: 'Hi' }, messengerMessage: { text: 'Hi', chat_id: 5 } };
    expect(detailsOf(() => parseCascadeRequest([item], { now }))).toEqual([
      { path: '[0].chatappMessage.Text', message: 'unknown member; did you mean "text"?' },
      { path: '[0].chatappMessage.fallbackTxt', message: 'unknown member; did you mean "fallbackText"?' },
      { path: '[0].messengerMessage.chat_id', message: 'unknown member; did you mean "chatId"?' },
    ]);
    expect(messengerMessageSchema.safeParse({ text: 'Hi', botName: 'shop_bot', parse_mode: 'HTML' }).success).toBe(true);
    expect(chatappMessageSchema.parse({ text: 'Hi', tracking_data: 't' })).toEqual({ text: 'Hi', tracking_data: 't' });
    // Told beside the errors of other members.
    const both = chatappMessageSchema.safeParse({ media: 'not a url', Text: 'Hi' });
    expect(both.error?.issues.map((i) => i.path.join('.'))).toEqual(['media', 'Text']);
  });
});

describe('checkCascadeVariables', () => {
  it('flags unknown variables and non-link url values, inline values first', () => {
    const cascades = parseCascadeRequest(
      [
        { ...base, text: 'Hi %name=1% %url=link%', variables: [{ id: 1, value: 'Ann' }] },
        { ...base, id: 'c-2', chatappMessage: { text: '%short_url=bad% %name=ghost%' } },
      ],
      { now },
    );
    const stored = new Map([
      ['link', 'https://e.com'],
      ['bad', 'not a link'],
    ]);
    expect(checkCascadeVariables(cascades, stored)).toEqual([
      { path: '[1].chatappMessage.text', message: 'variable %short_url=bad% is not an http(s) URL' },
      { path: '[1].chatappMessage.text', message: expect.stringContaining('unknown variable %name=ghost%') },
    ]);
  });

  it("addresses a shared text's problem at the message's own variables when asked (a broadcast)", () => {
    const text = 'Hi %name=first% %url=site%';
    const cascades = parseCascadeRequest(
      [
        { ...base, text, variables: [{ id: 'first', value: 'Ann' }] },
        { ...base, id: 'c-2', text, variables: [{ id: 'site', value: 'https://e.com' }] },
        {
          ...base,
          id: 'c-3',
          text,
          variables: [
            { id: 'first', value: 'Bob' },
            { id: 'site', value: 'no link' },
          ],
        },
      ],
      { now },
    );
    const stored = new Map([['site', 'also no link']]);
    expect(checkCascadeVariables(cascades, stored, { at: 'variables' })).toEqual([
      // A stored value is every message's: it stays at the field, where a broadcast reports it once.
      { path: '[0].text', message: 'variable %url=site% is not an http(s) URL' },
      { path: '[1].variables', message: 'unknown variable %name=first% in text: give it in variables or upload it to /api/items first' },
      { path: '[2].variables[1].value', message: 'variable %url=site% is not an http(s) URL' },
    ]);
  });
});
