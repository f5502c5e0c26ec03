import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors.ts';
import { broadcastDetails, expandBroadcast } from './cascade-broadcast.ts';

describe('broadcast', () => {
  it('expands the template once per recipient; a recipient keeps its own id and variables', () => {
    const items = expandBroadcast({
      fromName: 'Shop',
      text: 'Hi %name=n%',
      toPhone: 'ignored',
      recipients: ['99900000000', { toPhone: 99900000001, id: 7, variables: [{ id: 'n', value: 'Ann' }] }],
    });
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
    const details = broadcastDetails([
      { path: '[0].ttl', message: 'too big' },
      { path: '[1].ttl', message: 'too big' },
      { path: '[1].toPhone', message: 'bad' },
      { path: '[2].variables[0].id', message: 'bad id' },
      { path: '(body)', message: 'x' },
    ]);
    expect(details.map((d) => d.path)).toEqual(['ttl', 'recipients[1].toPhone', 'recipients[2].variables[0].id', '(body)']);
  });
});
