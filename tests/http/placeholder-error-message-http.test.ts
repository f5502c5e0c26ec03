import { describe, expect, it } from 'vitest';
import { serverOnTestDatabase } from '../support/test-database.ts';

// The error of a send whose texts name placeholders no per-phone data fills read
// "1 text(s) name unknown placeholders". It reads as English for one text and for many.
const s = serverOnTestDatabase('placeholder_message');

const send = (texts: string[]) =>
  s.call('/bat/messagelist', {
    json: { messages: texts.map((text, i) => ({ from: 'Acme', to: `9990000010${i}`, type: 'sms', text })) },
  });

describe(`the error of texts naming placeholders no per-phone data fills (${s.database.label})`, () => {
  it('speaks of one text in the singular', async () => {
    const res = await send(['Hi %name%, %bonus% points', 'Plain']);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string; details: unknown[] };
    expect(body).toMatchObject({
      error: 'validation_failed',
      message: "A text names a placeholder its recipient's per-phone data cannot fill",
    });
    expect(body.details).toEqual([{ path: 'messages[0].text', message: expect.stringContaining('unknown placeholders %name%, %bonus%') }]);
  });

  it('counts several texts in the plural', async () => {
    const res = await send(['Hi %name%', 'Plain', 'Bonus %bonus%', 'Tier %tier%']);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string; details: Array<{ path: string }> };
    expect(body.message).toBe("3 texts name placeholders their recipients' per-phone data cannot fill");
    expect(body.details.map((d) => d.path)).toEqual(['messages[0].text', 'messages[2].text', 'messages[3].text']);
  });
});
