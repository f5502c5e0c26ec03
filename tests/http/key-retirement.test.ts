import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import type { Storage } from '@spillway/core';
import { createTokenService } from '@spillway/http';
import { testStorage } from '../support/engine-fixture.ts';

// A signing key retired by one process is refused by every other at once, on SQLite and (with
// SPILLWAY_TEST_STORAGE=postgres) PostgreSQL: the retirement bumps the credential revision their
// key rings watch, instead of waiting out their minute of key cache.
let storage: Storage;
/** The `kid` of a JWT's header. */
const kidOf = (token: string): string => (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;
afterEach(() => storage?.close());

describe('retiring a signing key', () => {
  it('is seen by another process from its next token on, not when its key cache runs out', async () => {
    storage = await testStorage();
    const clock = createFakeClock(Date.UTC(2026, 10, 28, 12));
    const cli = createTokenService({ storage, clock, keyCacheMs: 60_000 });
    const server = createTokenService({ storage, clock, keyCacheMs: 60_000 });
    const old = await server.issueCompanyToken(1);
    expect((await server.verify(old, 'company')).ok).toBe(true);

    await cli.rotate();
    expect(await cli.retire(kidOf(old))).toBe(true);
    // The same instant: the server's key cache is still young.
    expect(await server.verify(old, 'company')).toMatchObject({ ok: false, reason: 'unknown_key' });
    // Its new tokens are signed with the new key, which it verifies.
    const fresh = await server.issueCompanyToken(1);
    expect(kidOf(fresh)).not.toBe(kidOf(old));
    expect((await server.verify(fresh, 'company')).ok).toBe(true);
  });
});
