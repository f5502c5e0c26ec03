import type Database from 'better-sqlite3';
import { SpillwayError } from '@spillway/core';
import { routeBindingFromRow, routeBindingKey, routeDefinitionJson, shortLinkFromRow, storedRouteFromRow } from '@spillway/core/storage';
import type { CascadeStorage, RouteBinding, RouteDefinition, ShortLink, StoredRoute, Variable } from '@spillway/core';
import type { RouteBindingRow, RouteRow, ShortLinkRow } from '@spillway/core/storage';
import { isUniqueViolation } from './sqlite-util.ts';

/**
 * Schema of the cascade tables; run by the storage's migrate() at every start, so idempotent.
 * Every revision of a route is a row of `cascade_route_revisions` (running messages reference
 * `id@revision`); `cascade_routes` holds each route's owner, latest revision and deletion.
 * A binding's alpha-name '' stands for the account default (NULL cannot sit in a primary key).
 */
export const CASCADE_SCHEMA = `
  CREATE TABLE IF NOT EXISTS cascade_routes (
    id         TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL,
    revision   INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    deleted_at INTEGER
  );
  CREATE INDEX IF NOT EXISTS cascade_routes_account ON cascade_routes(account_id);

  CREATE TABLE IF NOT EXISTS cascade_route_revisions (
    route_id   TEXT NOT NULL REFERENCES cascade_routes(id),
    revision   INTEGER NOT NULL,
    definition TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (route_id, revision)
  );

  CREATE TABLE IF NOT EXISTS cascade_route_bindings (
    account_id INTEGER NOT NULL,
    alpha_name TEXT NOT NULL,
    route_id   TEXT NOT NULL REFERENCES cascade_routes(id),
    PRIMARY KEY (account_id, alpha_name)
  );

  CREATE TABLE IF NOT EXISTS cascade_variables (
    account_id INTEGER NOT NULL,
    id         TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, id)
  );

  CREATE TABLE IF NOT EXISTS short_links (
    code       TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    url        TEXT NOT NULL,
    clicks     INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX IF NOT EXISTS short_links_message_url ON short_links(message_id, url);
`;

/** A route revision row as better-sqlite3 returns it: the definition is JSON text. */
type SqliteRouteRow = Omit<RouteRow, 'definition'> & { definition: string };

const toRoute = (row: SqliteRouteRow): StoredRoute =>
  storedRouteFromRow({ ...row, definition: JSON.parse(row.definition) as RouteDefinition });

const SELECT_ROUTE = `SELECT r.id, r.account_id, v.revision, r.created_at, v.definition, v.updated_at
  FROM cascade_routes r JOIN cascade_route_revisions v ON v.route_id = r.id`;

/** The cascade part of the SQLite storage, over the storage's database handle. */
export function createCascadeStore(db: Database.Database): CascadeStorage {
  const q = {
    listRoutes: db.prepare<[number], SqliteRouteRow>(
      `${SELECT_ROUTE} AND v.revision = r.revision WHERE r.account_id = ? AND r.deleted_at IS NULL ORDER BY r.created_at, r.id`,
    ),
    getRoute: db.prepare<[number, string], SqliteRouteRow>(
      `${SELECT_ROUTE} AND v.revision = r.revision WHERE r.account_id = ? AND r.id = ? AND r.deleted_at IS NULL`,
    ),
    getRevision: db.prepare<[string, number], SqliteRouteRow>(`${SELECT_ROUTE} WHERE r.id = ? AND v.revision = ?`),
    insertRoute: db.prepare<[string, number, number]>(
      `INSERT INTO cascade_routes (id, account_id, revision, created_at) VALUES (?, ?, 1, ?)`,
    ),
    insertRevision: db.prepare<[string, number, string, number]>(
      `INSERT INTO cascade_route_revisions (route_id, revision, definition, updated_at) VALUES (?, ?, ?, ?)`,
    ),
    head: db.prepare<[number, string], { revision: number }>(
      `SELECT revision FROM cascade_routes WHERE account_id = ? AND id = ? AND deleted_at IS NULL`,
    ),
    bumpRevision: db.prepare<[number, string, number]>(`UPDATE cascade_routes SET revision = ? WHERE id = ? AND revision = ?`),
    deleteRoute: db.prepare<[number, number, string]>(
      `UPDATE cascade_routes SET deleted_at = ? WHERE account_id = ? AND id = ? AND deleted_at IS NULL`,
    ),
    deleteBindingsOf: db.prepare<[string]>(`DELETE FROM cascade_route_bindings WHERE route_id = ?`),
    bind: db.prepare<[number, string, string]>(
      `INSERT INTO cascade_route_bindings (account_id, alpha_name, route_id) VALUES (?, ?, ?)
       ON CONFLICT (account_id, alpha_name) DO UPDATE SET route_id = excluded.route_id`,
    ),
    unbind: db.prepare<[number, string]>(`DELETE FROM cascade_route_bindings WHERE account_id = ? AND alpha_name = ?`),
    bindings: db.prepare<[number], RouteBindingRow>(
      `SELECT alpha_name, route_id FROM cascade_route_bindings WHERE account_id = ? ORDER BY alpha_name`,
    ),
    // The alpha-name's own binding sorts before the default ('').
    resolve: db.prepare<[number, string], SqliteRouteRow>(
      `${SELECT_ROUTE} AND v.revision = r.revision JOIN cascade_route_bindings b ON b.route_id = r.id
       WHERE b.account_id = ? AND b.alpha_name IN (?, '') AND r.deleted_at IS NULL ORDER BY b.alpha_name DESC LIMIT 1`,
    ),
    upsertVariable: db.prepare<[number, string, string, number]>(
      `INSERT INTO cascade_variables (account_id, id, value, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (account_id, id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    ),
    // ids as one JSON array: one statement whatever their number.
    getVariables: db.prepare<[number, string], Variable>(
      `SELECT id, value FROM cascade_variables WHERE account_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id`,
    ),
    insertLink: db.prepare<[string, number, number, string, number], ShortLinkRow>(
      `INSERT INTO short_links (code, account_id, message_id, url, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *`,
    ),
    linkOf: db.prepare<[number, string], ShortLinkRow>(`SELECT * FROM short_links WHERE message_id = ? AND url = ?`),
    link: db.prepare<[string], ShortLinkRow>(`SELECT * FROM short_links WHERE code = ?`),
    click: db.prepare<[string], ShortLinkRow>(`UPDATE short_links SET clicks = clicks + 1 WHERE code = ? RETURNING *`),
  };

  const createRoute = db.transaction((accountId: number, id: string, route: RouteDefinition, at: number): StoredRoute => {
    try {
      q.insertRoute.run(id, accountId, at);
    } catch (error) {
      if (isUniqueViolation(error)) throw new SpillwayError('conflict', `A route with id '${id}' exists`);
      throw error;
    }
    q.insertRevision.run(id, 1, routeDefinitionJson(route), at);
    return toRoute(q.getRevision.get(id, 1) as SqliteRouteRow);
  });

  const updateRoute = db.transaction(
    (accountId: number, id: string, expected: number, route: RouteDefinition, at: number): StoredRoute | null => {
      const head = q.head.get(accountId, id);
      if (!head) return null;
      if (head.revision !== expected) {
        throw new SpillwayError('conflict', `Route '${id}' is at revision ${head.revision}, not ${expected}`);
      }
      q.insertRevision.run(id, expected + 1, routeDefinitionJson(route), at);
      q.bumpRevision.run(expected + 1, id, expected);
      return toRoute(q.getRevision.get(id, expected + 1) as SqliteRouteRow);
    },
  );

  const deleteRoute = db.transaction((accountId: number, id: string, at: number): boolean => {
    if (q.deleteRoute.run(at, accountId, id).changes === 0) return false;
    q.deleteBindingsOf.run(id);
    return true;
  });

  const upsertVariables = db.transaction((accountId: number, variables: Variable[], at: number) => {
    for (const v of variables) q.upsertVariable.run(accountId, v.id, v.value, at);
  });

  const createShortLink = db.transaction((link: Omit<ShortLink, 'clicks' | 'createdAt'>, at: number): ShortLink => {
    const existing = q.linkOf.get(link.messageId, link.url);
    if (existing) return shortLinkFromRow(existing);
    try {
      return shortLinkFromRow(q.insertLink.get(link.code, link.accountId, link.messageId, link.url, at) as ShortLinkRow);
    } catch (error) {
      if (isUniqueViolation(error)) throw new SpillwayError('conflict', `Short link code '${link.code}' is taken`);
      throw error;
    }
  });

  return {
    listRoutes: async (accountId) => q.listRoutes.all(accountId).map(toRoute),
    getRoute: async (accountId, id) => {
      const row = q.getRoute.get(accountId, id);
      return row ? toRoute(row) : null;
    },
    getRouteRevision: async (id, revision) => {
      const row = q.getRevision.get(id, revision);
      return row ? toRoute(row) : null;
    },
    createRoute: async (accountId, id, route, at) => createRoute(accountId, id, route, at),
    updateRoute: async (accountId, id, expected, route, at) => updateRoute(accountId, id, expected, route, at),
    deleteRoute: async (accountId, id, at) => deleteRoute(accountId, id, at),
    bindRoute: async (accountId, routeId, alphaName) => {
      if (!q.head.get(accountId, routeId)) return false;
      q.bind.run(accountId, routeBindingKey(alphaName), routeId);
      return true;
    },
    unbindRoute: async (accountId, alphaName) => q.unbind.run(accountId, routeBindingKey(alphaName)).changes > 0,
    listRouteBindings: async (accountId): Promise<RouteBinding[]> => q.bindings.all(accountId).map(routeBindingFromRow),
    resolveRoute: async (accountId, alphaName) => {
      const row = q.resolve.get(accountId, alphaName);
      return row ? toRoute(row) : null;
    },
    upsertVariables: async (accountId, variables, at) => upsertVariables(accountId, variables, at),
    getVariables: async (accountId, ids) => (ids.length === 0 ? [] : q.getVariables.all(accountId, JSON.stringify(ids))),
    createShortLink: async (link, at) => createShortLink(link, at),
    getShortLink: async (code) => {
      const row = q.link.get(code);
      return row ? shortLinkFromRow(row) : null;
    },
    recordClick: async (code) => {
      const row = q.click.get(code);
      return row ? shortLinkFromRow(row) : null;
    },
  };
}
