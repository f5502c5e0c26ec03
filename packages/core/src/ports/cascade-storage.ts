import type { Variable } from '../cascade/variables.ts';
import type { Route } from '../types/route.ts';

/** The graph of a route as stored: a route without its id and revision. */
export type RouteDefinition = Omit<Route, 'id' | 'revision'>;

/** One revision of an account's route. */
export interface StoredRoute extends RouteDefinition {
  id: string;
  revision: number;
  accountId: number;
  createdAt: number;
  /** When this revision was written. */
  updatedAt: number;
}

/** Where a route applies: an alpha-name, or (null) the account default. */
export interface RouteBinding {
  alphaName: string | null;
  routeId: string;
}

/** A short link served at `GET /s/{code}`, made for one message when it was sent. */
export interface ShortLink {
  code: string;
  accountId: number;
  messageId: number;
  url: string;
  clicks: number;
  createdAt: number;
}

/** A short link to store: its code, target and message, before any click. */
export type NewShortLink = Omit<ShortLink, 'clicks' | 'createdAt'>;

/**
 * Cascade: routes (every revision kept, since running messages reference `id@revision`),
 * their bindings, variables and short links.
 */
export interface CascadeStorage {
  /** The latest revision of each live (not deleted) route of the account, by id. */
  listRoutes(accountId: number): Promise<StoredRoute[]>;
  /** The latest revision of a live route of the account. */
  getRoute(accountId: number, id: string): Promise<StoredRoute | null>;
  /** Any revision of any route, deleted ones included (running messages). */
  getRouteRevision(id: string, revision: number): Promise<StoredRoute | null>;
  /**
   * Stores revision 1 of a new route. Ids are chosen by the caller and unique across accounts.
   * @throws SpillwayError `conflict` when the id is taken.
   */
  createRoute(accountId: number, id: string, route: RouteDefinition, at: number): Promise<StoredRoute>;
  /**
   * Stores revision `expectedRevision + 1`; null when the account has no such live route.
   * @throws SpillwayError `conflict` when the latest revision is not `expectedRevision`.
   */
  updateRoute(accountId: number, id: string, expectedRevision: number, route: RouteDefinition, at: number): Promise<StoredRoute | null>;
  /** Deletes a route and its bindings; its revisions stay readable by {@link getRouteRevision}. */
  deleteRoute(accountId: number, id: string, at: number): Promise<boolean>;
  /** Binds a live route of the account to an alpha-name (null: the account default); false when no such route. */
  bindRoute(accountId: number, routeId: string, alphaName: string | null): Promise<boolean>;
  /** Removes the binding of an alpha-name (null: the account default). */
  unbindRoute(accountId: number, alphaName: string | null): Promise<boolean>;
  listRouteBindings(accountId: number): Promise<RouteBinding[]>;
  /** The route bound to the alpha-name, else the account default, else null (the built-in default). */
  resolveRoute(accountId: number, alphaName: string): Promise<StoredRoute | null>;

  /** Inserts or replaces variables of an account by id. */
  upsertVariables(accountId: number, variables: Variable[], at: number): Promise<void>;
  /** The stored variables among `ids` (unknown ids are left out). */
  getVariables(accountId: number, ids: string[]): Promise<Variable[]>;

  /**
   * Stores a short link, or answers the existing one of the same message and URL (a resend
   * reuses its link; `link.code` is then ignored).
   * @throws SpillwayError `conflict` when the code is taken by another link.
   */
  createShortLink(link: NewShortLink, at: number): Promise<ShortLink>;
  getShortLink(code: string): Promise<ShortLink | null>;
  /** Counts a click and answers the link with the new count; null for an unknown code. */
  recordClick(code: string): Promise<ShortLink | null>;
}
