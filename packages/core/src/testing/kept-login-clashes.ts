import { expect } from 'vitest';
import type { AccountStorage } from '../ports/account-storage.ts';

/**
 * The accounts an adapter's migration test writes in the schema before logins were one
 * regardless of case, by id: logins that differ only by case, which the migration must keep.
 */
export const CLASHING_LOGINS: ReadonlyArray<readonly [number, string]> = [
  [1, 'Shop'],
  [2, 'shop'],
  [3, 'other'],
  [4, 'SHOP'],
];

/** The warning the migration gives at start about {@link CLASHING_LOGINS}. */
export const CLASHING_LOGINS_WARNING =
  `spillway: 2 logins differ only by case from an older account's: "shop" (id 2), "SHOP" (id 4). Each is found by its exact ` +
  'spelling only; any other spelling finds the older account. Rename them to make every login one regardless of case.';

/**
 * Checks a storage migrated over {@link CLASHING_LOGINS}: each found by its exact spelling,
 * another spelling finding the oldest, and no new login differing only by case from them.
 */
export async function expectKeptLoginClashes(storage: AccountStorage): Promise<void> {
  const idOf = async (login: string) => (await storage.findAccountByLogin(login))?.account.id;
  expect([await idOf('Shop'), await idOf('shop'), await idOf('SHOP'), await idOf('sHoP'), await idOf('OTHER')]).toEqual([1, 2, 4, 1, 3]);
  for (const login of ['sHOP', 'Other']) {
    await expect(storage.createAccount({ login, name: 'N', passwordHash: 'h', currency: 'EUR' }, 2), login).rejects.toMatchObject({
      code: 'conflict',
    });
  }
}
