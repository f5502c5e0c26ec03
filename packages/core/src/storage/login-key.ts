/**
 * The key an account is looked up and kept unique by: its login in Unicode normalization form C,
 * lower-cased (`String.prototype.toLowerCase`, the same in every locale). `Shop`, `shop` and
 * `SHOP` are one login; the account keeps the spelling it was created with. Computed here rather
 * than by the database, whose `lower()` folds ASCII only (SQLite) or by its locale (PostgreSQL),
 * so that both storages agree on every login.
 *
 * @example loginKey('Shop-EU') === loginKey('SHOP-eu') // 'shop-eu'
 */
export function loginKey(login: string): string {
  return login.normalize('NFC').toLowerCase();
}

/**
 * The warning a storage gives at start about accounts kept from before logins were one
 * regardless of case, whose login differs only by case from an older account's: each is found
 * by its exact spelling only.
 */
export function loginClashWarning(clashes: ReadonlyArray<{ id: number; login: string }>): string {
  const list = clashes.map((c) => `"${c.login}" (id ${c.id})`).join(', ');
  const which = clashes.length === 1 ? 'a login differs' : `${clashes.length} logins differ`;
  return (
    `spillway: ${which} only by case from an older account's: ${list}. Each is found by its exact spelling only; ` +
    'any other spelling finds the older account. Rename them to make every login one regardless of case.'
  );
}

/**
 * The keys a storage's migration gives the accounts it already holds, in id order (oldest first):
 * an account whose login differs only by case from an older one's gets none, so that the key
 * stays unique; it is then found by its exact spelling only.
 */
export function loginKeysOf(accounts: ReadonlyArray<{ id: number; login: string }>): Array<{ id: number; key: string }> {
  const keyed = new Map<string, number>();
  for (const { id, login } of [...accounts].sort((a, b) => a.id - b.id)) {
    const key = loginKey(login);
    if (!keyed.has(key)) keyed.set(key, id);
  }
  return [...keyed].map(([key, id]) => ({ id, key }));
}
