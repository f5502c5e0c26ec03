import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors.ts';
import { broadcastDetails, expandBroadcast } from './cascade-broadcast.ts';

describe('broadcast', () => {
  it('expands the template once per recipient; a recipient keeps its own id and variables', () => {
    const { items, own } = expandBroadcast({
      fromName: 'Shop',
      text: 'Hi %name=n%',
      toPhone: 'ignored',
      recipients: ['99900000000', { toPhone: 99900000001, id: 7, variables: [{ id: 'n', value: 'Ann' }] }],
    });
    expect(own.map((members) => [...members])).toEqual([['toPhone'], ['toPhone', 'id', 'variables']]);
    expect(items).toEqual([
      { fromName: 'Shop', text: 'Hi %name=n%', toPhone: '99900000000' },
      { fromName: 'Shop', text: 'Hi %name=n%', toPhone: '99900000001', id: '7', variables: [{ id: 'n', value: 'Ann' }] },
    ]);
  });

  it("refuses a recipient's variable given twice, at the repeat", () => {
    const recipient = {
      toPhone: '99900000001',
      variables: [
        { id: 'n', value: 'Ann' },
        { id: 'n', value: 'Bob' },
      ],
    };
    let error: unknown;
    try {
      expandBroadcast({ text: 'Hi %name=n%', recipients: [recipient] });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'recipients[0].variables[1].id', message: 'variable n is given twice' }],
    });
  });

  it('rejects a broadcast without recipients', () => {
    expect(() => expandBroadcast({ text: 'x', recipients: [] })).toThrow(SpillwayError);
  });

  it('addresses per-recipient errors by recipient and template errors once at their own path', () => {
    const own = [new Set(['toPhone']), new Set(['toPhone']), new Set(['toPhone', 'variables'])];
    const details = broadcastDetails(
      [
        { path: '[0].ttl', message: 'too big' },
        { path: '[1].ttl', message: 'too big' },
        { path: '[1].toPhone', message: 'bad' },
        { path: '[2].variables[0].id', message: 'bad id' },
        { path: '[2].variables', message: 'unknown variable %name=n% in text' },
        { path: '(body)', message: 'x' },
      ],
      own,
    );
    expect(details.map((d) => d.path)).toEqual([
      'ttl',
      'recipients[1].toPhone',
      'recipients[2].variables[0].id',
      'recipients[2].variables',
      '(body)',
    ]);
  });

  it('lists the errors of the first 100 recipients, then how many more recipients had errors', () => {
    const own = Array.from({ length: 5000 }, () => new Set(['toPhone']));
    const lacking = (i: number) => [
      { path: `[${i}].variables`, message: 'unknown variable %name=n% in text' },
      { path: `[${i}].variables`, message: 'unknown variable %name=m% in text' },
    ];
    const details = broadcastDetails([{ path: '[0].ttl', message: 'too big' }, ...own.flatMap((_, i) => lacking(i))], own);
    expect(details).toHaveLength(1 + 200 + 1);
    expect(details[0]).toEqual({ path: 'ttl', message: 'too big' });
    // Every error of a listed recipient is listed.
    expect(details.slice(1, 3).map((d) => d.path)).toEqual(['recipients[0].variables', 'recipients[0].variables']);
    expect(details[200]).toEqual({ path: 'recipients[99].variables', message: 'unknown variable %name=m% in text' });
    expect(details.at(-1)).toEqual({
      path: 'recipients',
      message: '4900 more recipients have errors, not listed (only the first 100 are)',
    });
    // At the bound, nothing is left off.
    expect(
      broadcastDetails(
        own.slice(0, 100).flatMap((_, i) => lacking(i)),
        own,
      ),
    ).toHaveLength(200);
  });

  it("lists the first 100 recipients' errors of the broadcast's own shape too", () => {
    let error: unknown;
    try {
      expandBroadcast({ text: 'x', recipients: Array.from({ length: 150 }, () => true) });
    } catch (e) {
      error = e;
    }
    const details = (error as SpillwayError).details ?? [];
    expect(details).toHaveLength(101);
    expect(details[99]?.path).toBe('recipients[99]');
    expect(details[100]).toEqual({ path: 'recipients', message: '50 more recipients have errors, not listed (only the first 100 are)' });
  });

  it('addresses an error of a template member a recipient overrides at that recipient', () => {
    const { own } = expandBroadcast({ text: 'x', recipients: ['99900000000', { toPhone: '99900000001', ttl: 0 }] });
    const details = broadcastDetails([{ path: '[1].ttl', message: 'too small' }], own);
    expect(details).toEqual([{ path: 'recipients[1].ttl', message: 'too small' }]);
  });
});
