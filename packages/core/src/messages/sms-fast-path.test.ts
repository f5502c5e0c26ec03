import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_SMS_TEXT } from './message-data.ts';
import { MAX_CUSTOMER_MESSAGE_ID, MAX_FROM, MAX_TTL_SECONDS, messageItemSchema } from './message-item.ts';
import { parseSendRequest } from './send-request.ts';
import { parseCommonSms } from './sms-fast-path.ts';

// Values around every rule of the common sms item, valid ones most often (so that whole valid
// items are common), then edges and wrong types.
const mostlyValid = <T, U>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: other, weight: 1 });
const phone = mostlyValid(
  fc.constantFrom('4915112345678', '+4915112345678', '999000000100', '12025550123', '+447911123456'),
  fc.oneof(
    fc.constantFrom('12', '+', '', '99912', '4915 1123', '491511234567890123', '+0123456789'),
    fc.stringMatching(/^\+?[0-9]{0,17}$/),
    fc.integer(),
  ),
);
const text = mostlyValid(
  fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('x'.repeat(MAX_SMS_TEXT), 'Ünïcødé 😀')),
  fc.constantFrom('', 'x'.repeat(MAX_SMS_TEXT + 1), null, 7, undefined),
);
const from = mostlyValid(
  fc.oneof(fc.string({ minLength: 1, maxLength: 5 }), fc.constant('a'.repeat(MAX_FROM))),
  fc.constantFrom('', 'a'.repeat(MAX_FROM + 1), undefined, null, true),
);
const ttl = mostlyValid(
  fc.oneof(fc.constantFrom(undefined, null, 1, MAX_TTL_SECONDS), fc.integer({ min: 1, max: MAX_TTL_SECONDS })),
  fc.oneof(fc.constantFrom(0, -1, MAX_TTL_SECONDS + 1, 1.5, '60', '', Number.NaN, Infinity), fc.integer(), fc.double()),
);
const customerMessageId = mostlyValid(
  fc.oneof(fc.constantFrom(undefined, null, '', 'a'.repeat(MAX_CUSTOMER_MESSAGE_ID)), fc.string({ maxLength: 10 })),
  fc.constantFrom('a'.repeat(MAX_CUSTOMER_MESSAGE_ID + 1), 0, false, {}),
);
const type = fc.constantFrom('sms', 'sms', 'sms', 'SMS', 'chatapp_service', undefined);
// Members the fast path leaves to zod whatever their value, and unknown ones zod strips.
const others = fc.record(
  {
    messageData: fc.constantFrom(undefined, null, {}, { x: 1 }),
    scheduledAt: fc.constantFrom(undefined, null, '2030-01-01T00:00:00Z'),
    fallbacks: fc.constantFrom(undefined, null, []),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);
const item = fc
  .tuple(
    fc.record({ type, from, to: phone, text, ttl, customerMessageId }, { requiredKeys: ['type', 'from', 'to', 'text'] }),
    others,
    fc.boolean(),
  )
  // Spread into plain objects, as JSON.parse makes them (fc.record makes them without a prototype).
  .map(([base, rest, withRest]) => (withRest ? { ...base, ...rest } : { ...base }));

describe('parseCommonSms', () => {
  it('answers only items zod accepts, with zod output: same values, same key order', () => {
    fc.assert(
      fc.property(item, (raw) => {
        const fast = parseCommonSms(raw);
        const zod = messageItemSchema.safeParse(raw);
        if (fast === undefined) return;
        expect(zod.success).toBe(true);
        expect(fast).toStrictEqual(zod.data);
        expect(Object.keys(fast)).toEqual(Object.keys(zod.data!));
        expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
      }),
      { numRuns: 20_000 },
    );
  });

  it('answers every plain sms item zod accepts that has no messageData, schedule, fallbacks or string ttl', () => {
    fc.assert(
      fc.property(item, (raw) => {
        const zod = messageItemSchema.safeParse(raw);
        const eligible =
          zod.success &&
          zod.data.type === 'sms' &&
          !('messageData' in raw) &&
          !('scheduledAt' in raw) &&
          !('fallbacks' in raw) &&
          typeof (raw as { ttl?: unknown }).ttl !== 'string';
        if (eligible) expect(parseCommonSms(raw)).toBeDefined();
      }),
      { numRuns: 20_000 },
    );
  });

  it('leaves objects that are not plain to zod', () => {
    const inherited = Object.assign(Object.create({ text: 'inherited' }) as object, { type: 'sms', from: 'A', to: '4915112345678' });
    expect(parseCommonSms(inherited)).toBeUndefined();
    expect(
      parseCommonSms(Object.assign(Object.create(null) as object, { type: 'sms', from: 'A', to: '4915112345678', text: 'hi' })),
    ).toBeUndefined();
    expect(parseCommonSms(null)).toBeUndefined();
    expect(parseCommonSms([])).toBeUndefined();
  });

  it('normalizes the common item as the schema does', () => {
    expect(
      parseCommonSms({ type: 'sms', from: 'Acme', to: '+4915112345678', text: 'Hi', customerMessageId: '', ttl: 60, extra: 1 }),
    ).toEqual({
      type: 'sms',
      from: 'Acme',
      to: '4915112345678',
      text: 'Hi',
      ttl: 60,
      customerMessageId: null,
      scheduledAt: null,
      fallbacks: [],
    });
  });
});

describe('parseSendRequest with the fast path', () => {
  it('gives every item the output and content of the schema, fast path or not', () => {
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 8 }), (messages) => {
        const parsed = (() => {
          try {
            return parseSendRequest({ messages }, { now: Date.parse('2029-12-31T00:00:00Z') });
          } catch {
            return null;
          }
        })();
        const zod = messages.map((m) => messageItemSchema.safeParse(m));
        if (parsed === null) return;
        parsed.forEach((v, i) => {
          expect(zod[i]!.success).toBe(true);
          expect(v.item).toStrictEqual(zod[i]!.data);
          expect(v.content).toBe(JSON.stringify(zod[i]!.data));
          expect({ ...v }.content).toBe(v.content);
        });
      }),
      { numRuns: 2_000 },
    );
  });
});
