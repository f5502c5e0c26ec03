import type pg from 'pg';
import { SpillwayError } from '@spillway/core';
import { routeBindingFromRow, routeBindingKey, routeDefinitionJson, shortLinkFromRow, storedRouteFromRow } from '@spillway/core/storage';
import type { CascadeStorage, RouteBinding, ShortLink, Variable } from '@spillway/core';
import type { RouteBindingRow, RouteRow, ShortLinkRow } from '@spillway/core/storage';
import { isUniqueViolation, row, rows, run, transaction } from './pg-util.ts';

/**
 * The cascade part of the PostgreSQL storage, in the tables of `x` (the schema prefix): every
 * revision of a route is a row of `cascade_route_revisions`; `cascade_routes` holds each route's
 * owner, latest revision and deletion.
 */
export function createCascadeStore(pool: pg.Pool, x: string): CascadeStorage {
  const SELECT_ROUTE = `SELECT r.id, r.account_id, v.revision, r.created_at, v.definition, v.updated_at
    FROM ${x}cascade_routes r JOIN ${x}cascade_route_revisions v ON v.route_id = r.id`;
  const route = async (db: pg.Pool | pg.PoolClient, sql: string, values: unknown[]) => {
    const found = await row<RouteRow>(db, sql, values);
    return found ? storedRouteFromRow(found) : null;
  };
  const revision = (db: pg.Pool | pg.PoolClient, id: string, rev: number) =>
    route(db, `${SELECT_ROUTE} WHERE r.id = $1 AND v.revision = $2`, [id, rev]);
  const liveHead = async (db: pg.Pool | pg.PoolClient, accountId: number, id: string, lock = '') =>
    row<{ revision: number }>(
      db,
      `SELECT revision FROM ${x}cascade_routes WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL ${lock}`,
      [accountId, id],
    );

  return {
    async listRoutes(accountId) {
      return (
        await rows<RouteRow>(
          pool,
          `${SELECT_ROUTE} AND v.revision = r.revision WHERE r.account_id = $1 AND r.deleted_at IS NULL ORDER BY r.created_at, r.id COLLATE "C"`,
          [accountId],
        )
      ).map(storedRouteFromRow);
    },
    getRoute: (accountId, id) =>
      route(pool, `${SELECT_ROUTE} AND v.revision = r.revision WHERE r.account_id = $1 AND r.id = $2 AND r.deleted_at IS NULL`, [
        accountId,
        id,
      ]),
    getRouteRevision: (id, rev) => revision(pool, id, rev),

    createRoute: (accountId, id, definition, at) =>
      transaction(pool, async (client) => {
        try {
          await run(client, `INSERT INTO ${x}cascade_routes (id, account_id, revision, created_at) VALUES ($1, $2, 1, $3)`, [
            id,
            accountId,
            at,
          ]);
        } catch (error) {
          if (isUniqueViolation(error)) throw new SpillwayError('conflict', `A route with id '${id}' exists`);
          throw error;
        }
        await run(
          client,
          `INSERT INTO ${x}cascade_route_revisions (route_id, revision, definition, updated_at) VALUES ($1, 1, $2::jsonb, $3)`,
          [id, routeDefinitionJson(definition), at],
        );
        return (await revision(client, id, 1))!;
      }),

    updateRoute: (accountId, id, expected, definition, at) =>
      transaction(pool, async (client) => {
        // FOR UPDATE: two concurrent updates of one revision cannot both pass the check.
        const head = await liveHead(client, accountId, id, 'FOR UPDATE');
        if (!head) return null;
        if (head.revision !== expected) {
          throw new SpillwayError('conflict', `Route '${id}' is at revision ${head.revision}, not ${expected}`);
        }
        await run(
          client,
          `INSERT INTO ${x}cascade_route_revisions (route_id, revision, definition, updated_at) VALUES ($1, $2, $3::jsonb, $4)`,
          [id, expected + 1, routeDefinitionJson(definition), at],
        );
        await run(client, `UPDATE ${x}cascade_routes SET revision = $1 WHERE id = $2 AND revision = $3`, [expected + 1, id, expected]);
        return revision(client, id, expected + 1);
      }),

    deleteRoute: (accountId, id, at) =>
      transaction(pool, async (client) => {
        const deleted = await run(
          client,
          `UPDATE ${x}cascade_routes SET deleted_at = $1 WHERE account_id = $2 AND id = $3 AND deleted_at IS NULL`,
          [at, accountId, id],
        );
        if (deleted === 0) return false;
        await run(client, `DELETE FROM ${x}cascade_route_bindings WHERE route_id = $1`, [id]);
        return true;
      }),

    bindRoute: (accountId, routeId, alphaName) =>
      transaction(pool, async (client) => {
        // FOR SHARE: the route cannot be deleted between the check and the binding.
        if (!(await liveHead(client, accountId, routeId, 'FOR SHARE'))) return false;
        await run(
          client,
          `INSERT INTO ${x}cascade_route_bindings (account_id, alpha_name, route_id) VALUES ($1, $2, $3)
           ON CONFLICT (account_id, alpha_name) DO UPDATE SET route_id = excluded.route_id`,
          [accountId, routeBindingKey(alphaName), routeId],
        );
        return true;
      }),
    async unbindRoute(accountId, alphaName) {
      return (
        (await run(pool, `DELETE FROM ${x}cascade_route_bindings WHERE account_id = $1 AND alpha_name = $2`, [
          accountId,
          routeBindingKey(alphaName),
        ])) > 0
      );
    },
    async listRouteBindings(accountId): Promise<RouteBinding[]> {
      const found = await rows<RouteBindingRow>(
        pool,
        `SELECT alpha_name, route_id FROM ${x}cascade_route_bindings WHERE account_id = $1 ORDER BY alpha_name COLLATE "C"`,
        [accountId],
      );
      return found.map(routeBindingFromRow);
    },
    // The alpha-name's own binding sorts before the default ('').
    resolveRoute: (accountId, alphaName) =>
      route(
        pool,
        `${SELECT_ROUTE} AND v.revision = r.revision JOIN ${x}cascade_route_bindings b ON b.route_id = r.id
         WHERE b.account_id = $1 AND b.alpha_name IN ($2, '') AND r.deleted_at IS NULL ORDER BY b.alpha_name COLLATE "C" DESC LIMIT 1`,
        [accountId, alphaName],
      ),

    async upsertVariables(accountId, variables: Variable[], at) {
      if (variables.length === 0) return;
      // Last one wins for an id given twice, as when applied one by one (ON CONFLICT cannot touch a row twice).
      const byId = new Map(variables.map((v) => [v.id, v.value]));
      await run(
        pool,
        `INSERT INTO ${x}cascade_variables (account_id, id, value, updated_at)
         SELECT $1, v.id, v.value, $4 FROM unnest($2::text[], $3::text[]) AS v(id, value)
         ON CONFLICT (account_id, id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [accountId, [...byId.keys()], [...byId.values()], at],
      );
    },
    async getVariables(accountId, ids) {
      if (ids.length === 0) return [];
      return rows<Variable>(
        pool,
        `SELECT id, value FROM ${x}cascade_variables WHERE account_id = $1 AND id = ANY($2::text[]) ORDER BY id COLLATE "C"`,
        [accountId, ids],
      );
    },

    async createShortLink(link, at): Promise<ShortLink> {
      const existing = await row<ShortLinkRow>(pool, `SELECT * FROM ${x}short_links WHERE message_id = $1 AND url = $2`, [
        link.messageId,
        link.url,
      ]);
      if (existing) return shortLinkFromRow(existing);
      try {
        // A concurrent resend may insert the same message and URL first: then answer its link.
        const inserted = await row<ShortLinkRow>(
          pool,
          `INSERT INTO ${x}short_links (code, account_id, message_id, url, created_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (message_id, url) DO NOTHING RETURNING *`,
          [link.code, link.accountId, link.messageId, link.url, at],
        );
        if (inserted) return shortLinkFromRow(inserted);
      } catch (error) {
        if (isUniqueViolation(error)) throw new SpillwayError('conflict', `Short link code '${link.code}' is taken`);
        throw error;
      }
      const raced = await row<ShortLinkRow>(pool, `SELECT * FROM ${x}short_links WHERE message_id = $1 AND url = $2`, [
        link.messageId,
        link.url,
      ]);
      return shortLinkFromRow(raced!);
    },
    async getShortLink(code) {
      const found = await row<ShortLinkRow>(pool, `SELECT * FROM ${x}short_links WHERE code = $1`, [code]);
      return found ? shortLinkFromRow(found) : null;
    },
    async recordClick(code) {
      const found = await row<ShortLinkRow>(pool, `UPDATE ${x}short_links SET clicks = clicks + 1 WHERE code = $1 RETURNING *`, [code]);
      return found ? shortLinkFromRow(found) : null;
    },
  };
}
