import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ErrorDetail } from '../errors.ts';
import { distance } from './edit-distance.ts';
import { addNearMisses, knownMembers, meantMember, refusingNearMisses } from './near-miss.ts';
import { membersAt } from './schema-members.ts';

describe('distance', () => {
  it('counts insertions, deletions, substitutions and swaps of neighbours', () => {
    expect(distance('sheduledSent', 'scheduledSent')).toBe(1);
    expect(distance('systemId', 'sytemId')).toBe(1);
    expect(distance('chatId', 'chat_id')).toBe(2);
    expect(distance('wheterCheckSession', 'whetherCheckSession')).toBe(1);
    expect(distance('ab', 'ba')).toBe(1);
    expect(distance('', 'abc')).toBe(3);
    expect(distance('same', 'same')).toBe(0);
  });
});

describe('meantMember', () => {
  const names = ['id', 'ttl', 'text', 'fromName', 'sheduledSent', 'wheterCheckSession'];

  it('takes a name equal but for case, or within 2 edits of a name of 6 or more characters, 1 of one of 3 to 5', () => {
    expect(meantMember('FROMNAME', names)).toBe('fromName');
    expect(meantMember('ID', names)).toBe('id');
    expect(meantMember('scheduledSent', names)).toBe('sheduledSent');
    expect(meantMember('schedueldSent', names)).toBe('sheduledSent'); // a swap and an insertion
    expect(meantMember('from_name', names)).toBe('fromName');
    expect(meantMember('txt', names)).toBe('text');
    expect(meantMember('tx', names)).toBeUndefined();
    // Of a name of 2 characters, only the case: one edit makes a name of its own.
    expect(meantMember('Id', names)).toBe('id');
    expect(meantMember('ip', names)).toBeUndefined();
    expect(meantMember('uid', names)).toBeUndefined();
    expect(meantMember('tz', ['to', 'from'])).toBeUndefined();
    expect(meantMember('title', names)).toBeUndefined();
    expect(meantMember('messageId', names)).toBeUndefined();
    expect(meantMember('scheduledAt', names)).toBeUndefined();
  });

  it('takes the nearest of several', () => {
    expect(meantMember('texts', ['textz', 'text'])).toBe('textz');
    expect(meantMember('tex', ['texts', 'text'])).toBe('text');
  });
});

describe('addNearMisses', () => {
  const members = knownMembers(['toPhone', 'sheduledSent'], ['sheduledSent']);

  it('adds a detail at each near miss and answers whether it did, leaving other unknown members alone', () => {
    const details: ErrorDetail[] = [];
    expect(addNearMisses({ toPhone: '1', scheduledSent: 'x', TOPHONE: '2', mine: 1 }, members, '[3]', details)).toBe(true);
    expect(details).toEqual([
      { path: '[3].scheduledSent', message: 'unknown member; did you mean "sheduledSent"? (the interface spells it so)' },
      { path: '[3].TOPHONE', message: 'unknown member; did you mean "toPhone"?' },
    ]);
    expect(addNearMisses({ toPhone: '1', mine: 1 }, members, '', details)).toBe(false);
    expect(addNearMisses(['toPhon'], members, '', details)).toBe(false);
    expect(addNearMisses('toPhon', members, '', details)).toBe(false);
    expect(details).toHaveLength(2);
  });

  it('names a member at the top level by itself, and keeps to one memory per object kind', () => {
    const details: ErrorDetail[] = [];
    for (let i = 0; i < 600; i++) addNearMisses({ [`unknown${i}`]: 1, toPhon: '1' }, members, '', details, 'Unknown field');
    expect(details).toHaveLength(600);
    expect(details[0]).toEqual({ path: 'toPhon', message: 'Unknown field; did you mean "toPhone"?' });
    expect(members.found.size).toBeLessThanOrEqual(256);
  });
});

describe('refusingNearMisses', () => {
  it('refuses a near miss of a loose object at its member, keeping the members it does not take', () => {
    const schema = refusingNearMisses(
      z.looseObject({ text: z.string().optional(), photoUrl: z.string().optional() }),
      knownMembers(['text', 'photoUrl']),
    );
    expect(schema.parse({ text: 'a', extra: 1 })).toEqual({ text: 'a', extra: 1 });
    expect(schema.safeParse({ photoURL: 'x' }).error?.issues).toMatchObject([
      { path: ['photoURL'], message: 'unknown member; did you mean "photoUrl"?' },
    ]);
    expect(schema.safeParse('text').error?.issues).toHaveLength(1);
  });
});

describe('membersAt', () => {
  const card = z.strictObject({ sugText: z.string(), sugUrl: z.string() });
  const item = z.discriminatedUnion('type', [
    z.object({ type: z.literal('a'), data: z.strictObject({ one: z.string() }).nullish() }),
    z.object({ type: z.literal('b'), data: z.strictObject({ two: z.array(card) }).transform((d) => d) }),
  ]);

  it('names the members of the object schema at a path, through wrappers, arrays and the option the input picks', () => {
    expect(membersAt(item, { type: 'a' }, ['data'])).toEqual(['one']);
    expect(membersAt(item, { type: 'b' }, ['data'])).toEqual(['two']);
    expect(membersAt(item, { type: 'b', data: { two: [{}] } }, ['data', 'two', 0])).toEqual(['sugText', 'sugUrl']);
    expect(membersAt(item, { type: 'c' }, ['data'])).toEqual([]);
    expect(membersAt(item, { type: 'a' }, ['nowhere'])).toEqual([]);
  });
});

describe('addNearMisses over many objects named alike', () => {
  it('finds a near miss after objects of other names, in any order', () => {
    const members = knownMembers(['type', 'from', 'to', 'text', 'scheduledAt']);
    const details: ErrorDetail[] = [];
    const objects = [
      { type: 'sms', from: 'A', to: '1', text: 'x' },
      { type: 'sms', from: 'A', to: '1', text: 'x' },
      { type: 'sms', from: 'A', to: '1' },
      { from: 'A', type: 'sms', to: '1', text: 'x', sheduledAt: 't' },
      { type: 'sms', from: 'A', to: '1', text: 'x', Text: 'y' },
      { type: 'sms', from: 'A', to: '1', text: 'x', mine: 1 },
      { type: 'sms', from: 'A', to: '1', text: 'x', mine: 1, frm: 'B' },
    ];
    expect(objects.map((o, i) => addNearMisses(o, members, `[${i}]`, details))).toEqual([false, false, false, true, true, false, true]);
    expect(details.map((d) => d.path)).toEqual(['[3].sheduledAt', '[4].Text', '[6].frm']);
    // An inherited name is never remembered as a known one.
    const inherited = Object.create({ frm: 'B' }) as Record<string, unknown>;
    Object.assign(inherited, { type: 'sms' });
    expect(addNearMisses(inherited, members, '', details)).toBe(false);
    expect(addNearMisses({ type: 'sms', frm: 'B' }, members, '[7]', details)).toBe(true);
  });
});
