import { describe, expect, it } from 'vitest';
import { exportFileName } from './export-file-name.ts';

describe('exportFileName', () => {
  it('leaves no dash at either end of the name', () => {
    expect(exportFileName({ name: 'chat, then sms (designer)' })).toBe('chat-then-sms-designer.route.json');
    expect(exportFileName({ name: '(draft) -- SMS!' })).toBe('draft-SMS.route.json');
  });

  it('prefers the id, and falls back to "route" when nothing is left', () => {
    expect(exportFileName({ id: 'rt_1', name: 'x' })).toBe('rt_1.route.json');
    expect(exportFileName({ name: '…' })).toBe('route.route.json');
  });
});
