import { base64url } from 'jose';
import type { JWTVerifyGetKey } from 'jose';
import { SpillwayError } from '@spillway/core';
import type { ChatHubStorage, Clock } from '@spillway/core';

/** A signing key as shown to administrators: never the secret. */
export interface SigningKeyInfo {
  kid: string;
  createdAt: number;
  retiredAt: number | null;
  /** Whether new tokens are signed with it. */
  signing: boolean;
  /** Given by configuration (`SPILLWAY_JWT_SECRET`) rather than stored. */
  configured: boolean;
}

/** The HS256 keys of the token service: which one signs, which ones verify. */
export interface SigningKeyRing {
  /** Loads the keys, generating and storing the first one if there is none. */
  ready(): Promise<void>;
  /** The key new tokens are signed with. */
  signingKey(): Promise<{ kid: string; bytes: Uint8Array }>;
  /** For `jwtVerify`: the active key named by the header's `kid`; throws {@link UnknownKeyError}. */
  readonly getKey: JWTVerifyGetKey;
  rotate(): Promise<SigningKeyInfo>;
  retire(kid: string): Promise<boolean>;
  list(): Promise<SigningKeyInfo[]>;
}

export interface SigningKeyRingOptions {
  /**
   * Where the keys live. Its credential revision (`credentialRevision`), which a key's retirement
   * bumps, is read at every check: when it moved since the keys were read, they are read again at
   * once (a key retired by another process is refused from the next token on, not when the cache
   * runs out). A storage without it has only `keyCacheMs`.
   */
  storage: ChatHubStorage;
  clock: Clock;
  /** A configured secret: signs everything, is never stored. */
  secret?: string;
  /** How long keys read from storage are trusted before re-reading. */
  keyCacheMs: number;
}

/** A token names a key that is unknown, retired or absent. */
export class UnknownKeyError extends Error {}

interface LoadedKey {
  kid: string;
  bytes: Uint8Array;
  createdAt: number;
}

const randomSecret = (): string => base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
const newKid = (): string => `k-${base64url.encode(crypto.getRandomValues(new Uint8Array(9)))}`;

/**
 * Creates the key ring. Keys live in {@link ChatHubStorage} so that every process of a deployment
 * shares them; each process caches them for `keyCacheMs` and re-reads at once on an unknown kid
 * (a rotation elsewhere), at most once a second so that random kids cannot each cost a read.
 */
export function createSigningKeyRing(options: SigningKeyRingOptions): SigningKeyRing {
  const { storage, clock, keyCacheMs } = options;
  let configured: LoadedKey | null = null;
  let keys = new Map<string, LoadedKey>();
  let signing: LoadedKey | null = null;
  let loadedAt = -Infinity;
  let loadedRevision: number | null = null;
  let loading: Promise<void> | null = null;

  /**
   * Read at every check, never kept across checks: a retirement in another process must be seen
   * by the next one. The storage shares one read among the checks of a turn of the event loop.
   */
  const readRevision = async (): Promise<number | null> => (storage.credentialRevision ? storage.credentialRevision() : null);

  /** Loads the keys; `revision`, when the caller read it just now, is not read again. */
  const load = async (revision?: number | null): Promise<void> => {
    if (options.secret !== undefined && !configured) {
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(options.secret)));
      // The kid names the secret without revealing it, so a changed secret is a new kid.
      configured = { kid: `cfg-${base64url.encode(digest.slice(0, 9))}`, bytes: new TextEncoder().encode(options.secret), createdAt: 0 };
    }
    // Read before the keys: a retirement after this read moves it again, and the next check reloads.
    const current = revision === undefined ? await readRevision() : revision;
    let stored = await storage.listActiveSigningKeys();
    if (stored.length === 0 && !configured) {
      await storage.addSigningKey({ kid: newKid(), secret: randomSecret() }, clock.now());
      stored = await storage.listActiveSigningKeys();
    }
    const next = new Map<string, LoadedKey>();
    for (const k of stored) next.set(k.kid, { kid: k.kid, bytes: base64url.decode(k.secret), createdAt: k.createdAt });
    if (configured) next.set(configured.kid, configured);
    keys = next;
    // The configured secret always signs; otherwise the newest stored key does.
    signing = configured ?? next.get(stored[stored.length - 1]?.kid ?? '') ?? null;
    loadedAt = clock.now();
    loadedRevision = current;
  };

  const refresh = async (revision?: number | null): Promise<void> => {
    loading ??= load(revision).finally(() => {
      loading = null;
    });
    await loading;
  };

  /** After a write of our own: a load already in flight may have read before it. */
  const reload = async (): Promise<void> => {
    await loading?.catch(() => undefined);
    await refresh();
  };

  const ensureFresh = async (): Promise<void> => {
    const revision = await readRevision();
    if (clock.now() - loadedAt >= keyCacheMs || revision !== loadedRevision) await refresh(revision);
  };

  const info = (k: { kid: string; createdAt: number; retiredAt: number | null }, isConfigured: boolean): SigningKeyInfo => ({
    kid: k.kid,
    createdAt: k.createdAt,
    retiredAt: k.retiredAt,
    signing: signing?.kid === k.kid,
    configured: isConfigured,
  });

  return {
    ready: refresh,

    async signingKey() {
      await ensureFresh();
      if (!signing) throw new SpillwayError('internal', 'no signing key');
      return signing;
    },

    getKey: async (header) => {
      await ensureFresh();
      const kid = header.kid;
      if (typeof kid !== 'string') throw new UnknownKeyError('token has no key id');
      let key = keys.get(kid);
      if (!key && clock.now() - loadedAt >= 1000) {
        await refresh();
        key = keys.get(kid);
      }
      if (!key) throw new UnknownKeyError('token is signed with an unknown or retired key');
      return key.bytes;
    },

    async rotate() {
      if (options.secret !== undefined) {
        throw new SpillwayError('conflict', 'the signing key is given by SPILLWAY_JWT_SECRET: change the configuration to rotate it');
      }
      const key = await storage.addSigningKey({ kid: newKid(), secret: randomSecret() }, clock.now());
      await reload();
      return info(key, false);
    },

    async retire(kid) {
      await refresh();
      if (configured?.kid === kid) throw new SpillwayError('conflict', 'a configured key cannot be retired: remove SPILLWAY_JWT_SECRET');
      const active = await storage.listActiveSigningKeys();
      if (!active.some((k) => k.kid === kid)) return false;
      if (!configured && active.length === 1) throw new SpillwayError('conflict', 'the last signing key cannot be retired: rotate first');
      const done = await storage.retireSigningKey(kid, clock.now());
      await reload();
      return done;
    },

    async list() {
      await refresh();
      const all = (await storage.listSigningKeys()).map((k) => info(k, false));
      return configured ? [info({ ...configured, retiredAt: null }, true), ...all] : all;
    },
  };
}
