import { SignJWT, base64url, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { createFakeClock } from '@spillway/core';
import type { ChatHubStorage } from '@spillway/core';
import { runChatHubStorageContract } from '@spillway/core/testing';
import { createMemoryChatHubStorage } from './test-fixtures.ts';
import { createTokenService } from './token-service.ts';
import type { TokenServiceOptions } from './token-service.ts';

const HOUR = 3600_000;

async function setup(options: Partial<TokenServiceOptions> = {}) {
  const clock = createFakeClock();
  const storage = createMemoryChatHubStorage();
  const tokens = createTokenService({ storage, clock, ...options });
  await tokens.ready();
  const op = await storage.createOperator({ accountId: 1, name: 'Ann' }, clock.now());
  return { clock, storage, tokens, op };
}

/** Signs arbitrary claims with the stored signing key, as a forger holding the secret would. */
async function signWithStoredKey(s: Awaited<ReturnType<typeof setup>>, claims: Record<string, unknown>): Promise<string> {
  const [key] = await s.storage.listActiveSigningKeys();
  const now = Math.floor(s.clock.now() / 1000);
  return new SignJWT({ iss: 'spillway', jti: 'x', iat: now, sub: '1', ...claims })
    .setProtectedHeader({ alg: 'HS256', kid: key!.kid })
    .sign(base64url.decode(key!.secret));
}

const segment = (value: unknown) => base64url.encode(JSON.stringify(value));

describe('in-memory chat hub storage (test fixture)', () => {
  runChatHubStorageContract({ create: createMemoryChatHubStorage });
});

describe('token service', () => {
  it('generates a signing key on first start and stores it: a second process verifies its tokens', async () => {
    const s = await setup();
    expect(await s.storage.listActiveSigningKeys()).toHaveLength(1);
    const token = await s.tokens.issueCompanyToken(1);
    const other = createTokenService({ storage: s.storage, clock: s.clock });
    await other.ready();
    expect(await s.storage.listActiveSigningKeys()).toHaveLength(1);
    expect(await other.verify(token, 'company')).toMatchObject({ ok: true, claims: { type: 'company', accountId: 1 } });
  });

  it('issues company tokens with issuer, audience, type, jti and kid, and no expiry', async () => {
    const s = await setup();
    const token = await s.tokens.issueCompanyToken(1);
    const header = decodeProtectedHeader(token);
    const payload = decodeJwt(token);
    expect(header).toMatchObject({ alg: 'HS256', kid: (await s.storage.listActiveSigningKeys())[0]!.kid });
    expect(payload).toMatchObject({ iss: 'spillway', aud: 'spillway:chat-hub', tt: 'company', cid: 1 });
    expect(payload.exp).toBeUndefined();
    expect(typeof payload.jti).toBe('string');
    expect(decodeJwt(await s.tokens.issueCompanyToken(1)).jti).not.toBe(payload.jti);
  });

  it('issues operator tokens expiring at expiresAt and client tokens for an hour', async () => {
    const s = await setup();
    const expiresAt = s.clock.now() + 2 * HOUR;
    const op = await s.tokens.verify(await s.tokens.issueOperatorToken({ accountId: 1, operatorId: s.op.id, expiresAt }), 'operator');
    expect(op).toMatchObject({ ok: true, claims: { type: 'operator', accountId: 1, operatorId: s.op.id, expiresAt } });
    const client = await s.tokens.issueClientToken(1);
    expect(client.expiresAt).toBe(s.clock.now() + HOUR);
    expect(decodeJwt(client.token)).toMatchObject({ aud: 'spillway:client', tt: 'client' });
  });

  it('uses a configured secret without storing it, across processes', async () => {
    const secret = 'x'.repeat(40);
    const clock = createFakeClock();
    const storage = createMemoryChatHubStorage();
    const a = createTokenService({ storage, clock, secret });
    const token = await a.issueCompanyToken(1);
    expect(await storage.listSigningKeys()).toEqual([]);
    const b = createTokenService({ storage: createMemoryChatHubStorage(), clock, secret });
    expect((await b.verify(token, 'company')).ok).toBe(true);
    const c = createTokenService({ storage: createMemoryChatHubStorage(), clock, secret: 'y'.repeat(40) });
    expect(await c.verify(token, 'company')).toMatchObject({ ok: false, reason: 'unknown_key' });
    await expect(a.rotate()).rejects.toMatchObject({ code: 'conflict' });
    expect(() => createTokenService({ storage, clock, secret: 'short' })).toThrow(/32/);
  });

  describe('refuses forged and broken tokens', () => {
    it('alg none', async () => {
      const s = await setup();
      const kid = (await s.storage.listActiveSigningKeys())[0]!.kid;
      const payload = decodeJwt(await s.tokens.issueCompanyToken(1));
      const none = `${segment({ alg: 'none', kid })}.${segment(payload)}.`;
      expect(await s.tokens.verify(none, 'company')).toMatchObject({ ok: false, reason: 'algorithm' });
    });

    it('HS256 signed with another secret under our kid', async () => {
      const s = await setup();
      const kid = (await s.storage.listActiveSigningKeys())[0]!.kid;
      const forged = await new SignJWT({ tt: 'company', cid: 1, jti: 'j' })
        .setProtectedHeader({ alg: 'HS256', kid })
        .setIssuer('spillway')
        .setAudience('spillway:chat-hub')
        .setSubject('1')
        .setIssuedAt(Math.floor(s.clock.now() / 1000))
        .sign(new TextEncoder().encode('another-secret-another-secret-another'));
      expect(await s.tokens.verify(forged, 'company')).toMatchObject({ ok: false, reason: 'signature' });
    });

    it('RS256 header (alg confusion), signed with an RSA key or with our secret as HMAC', async () => {
      const s = await setup();
      const [key] = await s.storage.listActiveSigningKeys();
      const payload = decodeJwt(await s.tokens.issueCompanyToken(1));
      const { privateKey } = await generateKeyPair('RS256');
      const rsa = await new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: key!.kid }).sign(privateKey);
      expect(await s.tokens.verify(rsa, 'company')).toMatchObject({ ok: false, reason: 'algorithm' });
      // The classic confusion: header says RS256, signature is an HMAC with the verifier's secret.
      const hs = (await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', kid: key!.kid }).sign(base64url.decode(key!.secret))).split(
        '.',
      );
      const confused = `${segment({ alg: 'RS256', kid: key!.kid })}.${hs[1]}.${hs[2]}`;
      expect(await s.tokens.verify(confused, 'company')).toMatchObject({ ok: false, reason: 'algorithm' });
    });

    it('a tampered payload', async () => {
      const s = await setup();
      const [h, , sig] = (await s.tokens.issueCompanyToken(1)).split('.');
      const payload = decodeJwt(await s.tokens.issueCompanyToken(1));
      const tampered = `${h}.${segment({ ...payload, cid: 2 })}.${sig}`;
      expect(await s.tokens.verify(tampered, 'company')).toMatchObject({ ok: false, reason: 'signature' });
    });

    it('garbage, a wrong issuer and an unknown kid', async () => {
      const s = await setup();
      expect(await s.tokens.verify('not-a-jwt', 'company')).toMatchObject({ ok: false, reason: 'malformed' });
      expect(await s.tokens.verify('x'.repeat(5000), 'company')).toMatchObject({ ok: false, reason: 'malformed' });
      const wrongIss = await signWithStoredKey(s, { iss: 'someone', aud: 'spillway:chat-hub', tt: 'company', cid: 1 });
      expect(await s.tokens.verify(wrongIss, 'company')).toMatchObject({ ok: false, reason: 'claims' });
      const [, p, sig] = (await s.tokens.issueCompanyToken(1)).split('.');
      const unknownKid = `${segment({ alg: 'HS256', kid: 'k-unknown' })}.${p}.${sig}`;
      expect(await s.tokens.verify(unknownKid, 'company')).toMatchObject({ ok: false, reason: 'unknown_key' });
    });

    it('a type claim that does not match the audience', async () => {
      const s = await setup();
      const swapped = await signWithStoredKey(s, {
        aud: 'spillway:chat-hub',
        tt: 'client',
        cid: 1,
        exp: Math.floor(s.clock.now() / 1000) + 60,
      });
      expect(await s.tokens.verify(swapped)).toMatchObject({ ok: false, reason: 'claims' });
    });
  });

  it('answers wrong_type for a genuine token of another type', async () => {
    const s = await setup();
    const company = await s.tokens.issueCompanyToken(1);
    const client = (await s.tokens.issueClientToken(1)).token;
    expect(await s.tokens.verify(company, 'operator')).toMatchObject({ ok: false, reason: 'wrong_type', claims: { type: 'company' } });
    expect(await s.tokens.verify(client, 'company')).toMatchObject({ ok: false, reason: 'wrong_type' });
    expect(await s.tokens.verify(company)).toMatchObject({ ok: true });
  });

  describe('time', () => {
    it('expires operator tokens exactly at expiresAt: the clock tolerance never extends a token', async () => {
      const s = await setup();
      const expiresAt = s.clock.now() + HOUR;
      const token = await s.tokens.issueOperatorToken({ accountId: 1, operatorId: s.op.id, expiresAt });
      await s.clock.advance(HOUR - 1000);
      expect((await s.tokens.verify(token, 'operator')).ok).toBe(true);
      await s.clock.advance(1000);
      const expired = await s.tokens.verify(token, 'operator');
      expect(expired).toMatchObject({ ok: false, reason: 'expired', claims: { operatorId: s.op.id, expiresAt } });
    });

    it('accepts a token from an issuer clock up to 30 s ahead, and refuses one further ahead', async () => {
      const s = await setup();
      const ahead = (ms: number) => {
        const clock = createFakeClock(s.clock.now() + ms);
        return createTokenService({ storage: s.storage, clock }).issueCompanyToken(1);
      };
      expect((await s.tokens.verify(await ahead(20_000), 'company')).ok).toBe(true);
      expect(await s.tokens.verify(await ahead(60_000), 'company')).toMatchObject({
        ok: false,
        reason: 'claims',
        message: 'token is not valid yet',
      });
    });

    it('honours a configured tolerance for issuer clocks ahead', async () => {
      const s = await setup({ clockToleranceSeconds: 0 });
      const ahead = createTokenService({ storage: s.storage, clock: createFakeClock(s.clock.now() + 5_000) });
      expect(await s.tokens.verify(await ahead.issueCompanyToken(1), 'company')).toMatchObject({ ok: false, reason: 'claims' });
    });
  });

  it('refuses revoked tokens and the tokens of a deleted operator', async () => {
    const s = await setup();
    const token = await s.tokens.issueCompanyToken(1);
    const result = await s.tokens.verify(token, 'company');
    if (!result.ok) throw new Error('expected a valid token');
    await s.tokens.revoke(result.claims);
    expect(await s.tokens.verify(token, 'company')).toMatchObject({ ok: false, reason: 'revoked' });
    expect((await s.tokens.verify(await s.tokens.issueCompanyToken(1), 'company')).ok).toBe(true);

    const op = await s.tokens.issueOperatorToken({ accountId: 1, operatorId: s.op.id, expiresAt: s.clock.now() + HOUR });
    await s.storage.deleteOperator(1, s.op.id);
    expect(await s.tokens.verify(op, 'operator')).toMatchObject({ ok: false, reason: 'revoked' });
  });

  it('forgets revocations of long-expired tokens when revoking another', async () => {
    const s = await setup();
    const first = await s.tokens.verify(
      await s.tokens.issueOperatorToken({ accountId: 1, operatorId: s.op.id, expiresAt: s.clock.now() + 60_000 }),
    );
    if (!first.ok) throw new Error('expected a valid token');
    await s.tokens.revoke(first.claims);
    await s.clock.advance(60_000 + 30_000);
    const second = await s.tokens.verify(await s.tokens.issueCompanyToken(1));
    if (!second.ok) throw new Error('expected a valid token');
    await s.tokens.revoke(second.claims);
    // Still inside the tolerance: the entry must stay, or the token would verify again.
    expect(await s.storage.getRevokedToken(first.claims.jti)).not.toBeNull();
    await s.clock.advance(2000);
    await s.tokens.revoke(second.claims);
    expect(await s.storage.getRevokedToken(first.claims.jti)).toBeNull();
    expect(await s.storage.getRevokedToken(second.claims.jti)).not.toBeNull();
  });

  describe('key rotation', () => {
    it('signs with the new key; old tokens verify until their key is retired', async () => {
      const s = await setup();
      const oldToken = await s.tokens.issueCompanyToken(1);
      const oldKid = decodeProtectedHeader(oldToken).kid!;
      const rotated = await s.tokens.rotate();
      const newToken = await s.tokens.issueCompanyToken(1);
      expect(decodeProtectedHeader(newToken).kid).toBe(rotated.kid);
      expect(rotated.kid).not.toBe(oldKid);
      expect((await s.tokens.verify(oldToken, 'company')).ok).toBe(true);
      expect(await s.tokens.retire(oldKid)).toBe(true);
      expect(await s.tokens.verify(oldToken, 'company')).toMatchObject({ ok: false, reason: 'unknown_key' });
      expect((await s.tokens.verify(newToken, 'company')).ok).toBe(true);
      expect((await s.tokens.listKeys()).map((k) => [k.kid, k.signing, k.retiredAt !== null])).toEqual([
        [oldKid, false, true],
        [rotated.kid, true, false],
      ]);
    });

    it('refuses to retire the last active key and answers false for an unknown one', async () => {
      const s = await setup();
      const [key] = await s.storage.listActiveSigningKeys();
      await expect(s.tokens.retire(key!.kid)).rejects.toMatchObject({ code: 'conflict' });
      expect(await s.tokens.retire('k-nope')).toBe(false);
    });

    it('another process sees a rotation at once and a retirement within the key cache time', async () => {
      const s = await setup();
      const other = createTokenService({ storage: s.storage, clock: s.clock, keyCacheMs: 60_000 });
      const oldToken = await other.issueCompanyToken(1);
      await s.clock.advance(2000);
      await s.tokens.rotate();
      expect((await other.verify(await s.tokens.issueCompanyToken(1), 'company')).ok).toBe(true);
      await s.tokens.retire(decodeProtectedHeader(oldToken).kid!);
      await s.clock.advance(60_000);
      expect(await other.verify(oldToken, 'company')).toMatchObject({ ok: false, reason: 'unknown_key' });
    });

    it('reads the storage’s credential revision once a check, and once for the reload after another process retired a key', async () => {
      const clock = createFakeClock();
      const memory = createMemoryChatHubStorage();
      let revision = 0;
      let reads = 0;
      let keyReads = 0;
      const storage: ChatHubStorage = {
        ...memory,
        listActiveSigningKeys: () => (keyReads++, memory.listActiveSigningKeys()),
        credentialRevision: async () => (reads++, revision),
      };
      const tokens = createTokenService({ storage, clock });
      const oldToken = await tokens.issueCompanyToken(1);
      await memory.addSigningKey({ kid: 'k-next', secret: base64url.encode(new Uint8Array(32).fill(7)) }, clock.now());
      [reads, keyReads] = [0, 0];
      expect((await tokens.verify(oldToken, 'company')).ok).toBe(true);
      expect([reads, keyReads]).toEqual([1, 0]);

      // Another process retires the key: its transaction bumps the revision, and this process
      // refuses the key's tokens at once, long before the key cache time.
      await memory.retireSigningKey(decodeProtectedHeader(oldToken).kid!, clock.now());
      revision++;
      [reads, keyReads] = [0, 0];
      expect(await tokens.verify(oldToken, 'company')).toMatchObject({ ok: false, reason: 'unknown_key' });
      expect([reads, keyReads]).toEqual([1, 1]);
    });
  });
});
