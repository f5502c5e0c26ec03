import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors.ts';
import type { CascadeStorage, RouteDefinition } from '../ports/cascade-storage.ts';

/** Options of {@link runCascadeStorageContract}. */
export interface CascadeStorageContractOptions {
  /** A fresh, migrated, empty store for each test. */
  create: () => Promise<CascadeStorage> | CascadeStorage;
  /** Called after each test with the store `create` answered. */
  dispose?: (store: CascadeStorage) => Promise<void> | void;
}

const chain: RouteDefinition = {
  name: 'chat then sms',
  start: 'chat',
  steps: [
    { id: 'chat', channel: 'chatapp', position: { x: 0, y: 0 } },
    { id: 'sms', channel: 'sms', timeoutSeconds: 600 },
  ],
  edges: [{ from: 'chat', to: 'sms', on: 'undeliverable' }],
};
const smsOnly: RouteDefinition = { name: 'sms only', start: 'sms', steps: [{ id: 'sms', channel: 'sms' }], edges: [] };

async function rejection(promise: Promise<unknown>): Promise<SpillwayError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SpillwayError);
    return error as SpillwayError;
  }
  throw new Error('expected a SpillwayError');
}

/**
 * The conformance suite of the cascade part of the storage port; every adapter's test file calls it.
 * @example runCascadeStorageContract({ create: () => createCascadeStore(freshDb()) })
 */
export function runCascadeStorageContract(options: CascadeStorageContractOptions): void {
  const withStore = (fn: (s: CascadeStorage) => Promise<void>) => async () => {
    const store = await options.create();
    try {
      await fn(store);
    } finally {
      await options.dispose?.(store);
    }
  };

  describe('cascade storage contract', () => {
    describe('routes', () => {
      it(
        'creates revision 1 and reads it back whole',
        withStore(async (s) => {
          const route = await s.createRoute(1, 'r1', chain, 1000);
          expect(route).toEqual({ ...chain, id: 'r1', revision: 1, accountId: 1, createdAt: 1000, updatedAt: 1000 });
          expect(await s.getRoute(1, 'r1')).toEqual(route);
          expect(await s.getRoute(2, 'r1')).toBeNull();
          expect(await s.getRouteRevision('r1', 1)).toEqual(route);
          expect(await s.getRouteRevision('r1', 2)).toBeNull();
        }),
      );

      it(
        'refuses a taken id, whatever the account',
        withStore(async (s) => {
          await s.createRoute(1, 'r1', chain, 1);
          expect((await rejection(s.createRoute(2, 'r1', smsOnly, 2))).code).toBe('conflict');
          expect((await s.getRoute(1, 'r1'))?.name).toBe(chain.name);
        }),
      );

      it(
        'updates with the expected revision only, keeping old revisions readable',
        withStore(async (s) => {
          await s.createRoute(1, 'r1', chain, 1);
          const r2 = await s.updateRoute(1, 'r1', 1, smsOnly, 5);
          expect(r2).toEqual({ ...smsOnly, id: 'r1', revision: 2, accountId: 1, createdAt: 1, updatedAt: 5 });
          const stale = await rejection(s.updateRoute(1, 'r1', 1, chain, 6));
          expect(stale.code).toBe('conflict');
          expect((await s.getRoute(1, 'r1'))?.revision).toBe(2);
          expect((await s.getRouteRevision('r1', 1))?.steps).toEqual(chain.steps);
          expect(await s.updateRoute(2, 'r1', 2, chain, 7)).toBeNull();
          expect(await s.updateRoute(1, 'nope', 1, chain, 7)).toBeNull();
        }),
      );

      it(
        'lists the latest revision of the live routes of an account',
        withStore(async (s) => {
          await s.createRoute(1, 'a', chain, 1);
          await s.createRoute(1, 'b', smsOnly, 2);
          await s.createRoute(2, 'c', smsOnly, 3);
          await s.updateRoute(1, 'a', 1, { ...chain, name: 'renamed' }, 4);
          const list = await s.listRoutes(1);
          expect(list.map((r) => [r.id, r.revision, r.name])).toEqual([
            ['a', 2, 'renamed'],
            ['b', 1, 'sms only'],
          ]);
          expect(await s.listRoutes(3)).toEqual([]);
        }),
      );

      it(
        'deletes a route for its own account, keeping its revisions for running messages',
        withStore(async (s) => {
          await s.createRoute(1, 'a', chain, 1);
          await s.bindRoute(1, 'a', null);
          expect(await s.deleteRoute(2, 'a', 2)).toBe(false);
          expect(await s.deleteRoute(1, 'a', 2)).toBe(true);
          expect(await s.deleteRoute(1, 'a', 3)).toBe(false);
          expect(await s.getRoute(1, 'a')).toBeNull();
          expect(await s.listRoutes(1)).toEqual([]);
          expect((await s.getRouteRevision('a', 1))?.name).toBe(chain.name);
          expect(await s.listRouteBindings(1)).toEqual([]);
          expect(await s.updateRoute(1, 'a', 1, chain, 4)).toBeNull();
        }),
      );
    });

    describe('bindings', () => {
      it(
        'resolves the alpha-name binding, then the account default, then nothing',
        withStore(async (s) => {
          await s.createRoute(1, 'named', chain, 1);
          await s.createRoute(1, 'fallback', smsOnly, 2);
          expect(await s.resolveRoute(1, 'Shop')).toBeNull();
          expect(await s.bindRoute(1, 'fallback', null)).toBe(true);
          expect((await s.resolveRoute(1, 'Shop'))?.id).toBe('fallback');
          expect(await s.bindRoute(1, 'named', 'Shop')).toBe(true);
          expect((await s.resolveRoute(1, 'Shop'))?.id).toBe('named');
          expect((await s.resolveRoute(1, 'Other'))?.id).toBe('fallback');
          expect(await s.resolveRoute(2, 'Shop')).toBeNull();
          expect(await s.listRouteBindings(1)).toEqual([
            { alphaName: null, routeId: 'fallback' },
            { alphaName: 'Shop', routeId: 'named' },
          ]);
          await s.updateRoute(1, 'named', 1, { ...chain, name: 'v2' }, 3);
          expect(await s.resolveRoute(1, 'Shop')).toMatchObject({ id: 'named', revision: 2, name: 'v2' });
        }),
      );

      it(
        'rebinds, unbinds, and refuses routes of other accounts',
        withStore(async (s) => {
          await s.createRoute(1, 'a', chain, 1);
          await s.createRoute(1, 'b', smsOnly, 1);
          await s.createRoute(2, 'theirs', smsOnly, 1);
          expect(await s.bindRoute(1, 'theirs', 'Shop')).toBe(false);
          expect(await s.bindRoute(1, 'missing', null)).toBe(false);
          await s.bindRoute(1, 'a', 'Shop');
          await s.bindRoute(1, 'b', 'Shop');
          expect((await s.resolveRoute(1, 'Shop'))?.id).toBe('b');
          expect(await s.unbindRoute(1, 'Shop')).toBe(true);
          expect(await s.unbindRoute(1, 'Shop')).toBe(false);
          expect(await s.unbindRoute(1, null)).toBe(false);
          expect(await s.resolveRoute(1, 'Shop')).toBeNull();
        }),
      );
    });

    describe('variables', () => {
      it(
        'upserts per account and answers the known ids only',
        withStore(async (s) => {
          await s.upsertVariables(
            1,
            [
              { id: '1', value: 'Ann' },
              { id: 'link', value: 'https://e.com' },
            ],
            1,
          );
          await s.upsertVariables(2, [{ id: '1', value: 'Bob' }], 1);
          await s.upsertVariables(1, [{ id: '1', value: 'Anna' }], 2);
          const got = await s.getVariables(1, ['1', 'link', 'ghost']);
          expect([...got].sort((a, b) => a.id.localeCompare(b.id))).toEqual([
            { id: '1', value: 'Anna' },
            { id: 'link', value: 'https://e.com' },
          ]);
          expect(await s.getVariables(2, ['1', 'link'])).toEqual([{ id: '1', value: 'Bob' }]);
          expect(await s.getVariables(1, [])).toEqual([]);
        }),
      );

      it(
        'stores thousands of variables in one call',
        withStore(async (s) => {
          const many = Array.from({ length: 3000 }, (_, i) => ({ id: String(i), value: `v${i}` }));
          await s.upsertVariables(1, many, 1);
          expect(
            await s.getVariables(
              1,
              many.map((v) => v.id),
            ),
          ).toHaveLength(3000);
        }),
      );
    });

    describe('short links', () => {
      it(
        'creates a link, reuses it for the same message and URL, and counts clicks',
        withStore(async (s) => {
          const link = await s.createShortLink({ code: 'abc123', accountId: 1, messageId: 7, url: 'https://e.com/x' }, 100);
          expect(link).toEqual({ code: 'abc123', accountId: 1, messageId: 7, url: 'https://e.com/x', clicks: 0, createdAt: 100 });
          const again = await s.createShortLink({ code: 'zzz999', accountId: 1, messageId: 7, url: 'https://e.com/x' }, 200);
          expect(again.code).toBe('abc123');
          expect(await s.getShortLink('zzz999')).toBeNull();
          expect((await s.recordClick('abc123'))?.clicks).toBe(1);
          expect((await s.recordClick('abc123'))?.clicks).toBe(2);
          expect((await s.getShortLink('abc123'))?.clicks).toBe(2);
          expect(await s.recordClick('nope')).toBeNull();
        }),
      );

      it(
        'refuses a code taken by another link',
        withStore(async (s) => {
          await s.createShortLink({ code: 'same', accountId: 1, messageId: 1, url: 'https://e.com/a' }, 1);
          const error = await rejection(s.createShortLink({ code: 'same', accountId: 1, messageId: 2, url: 'https://e.com/a' }, 2));
          expect(error.code).toBe('conflict');
          expect((await s.getShortLink('same'))?.messageId).toBe(1);
        }),
      );
    });
  });
}
