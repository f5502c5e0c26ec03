import type { DeliveryStatus, HistoryStatus } from '../types/status.ts';

/** One cascade that ran on a route revision, with what the stats need of it. */
export interface RouteTraffic {
  messageId: number;
  status: DeliveryStatus;
  createdAt: number;
  /** Micro-units charged for the whole cascade. */
  cost: number;
  /** Micro-units of each step (charged when the step was sent or failed). */
  stepCosts: number[];
  /** The history in order (`seq`). */
  history: { step: number; status: HistoryStatus; at: number; error: string | null }[];
}

/** The traffic of one route revision of an account over a period. */
export interface RouteTrafficQuery {
  accountId: number;
  /** `id@revision` of the route the cascades ran on. */
  routeRef: string;
  /** Created at or after, ms. */
  since: number;
  /** Created before, ms. */
  until: number;
  /** Most cascades read (the newest first). */
  limit: number;
}

/**
 * Reads the cascades of one route revision over a window, from the messages and history the
 * engine already keeps (no table of its own). Storage adapters implement it over their handle.
 */
export interface RouteStatsStorage {
  routeTraffic(query: RouteTrafficQuery): Promise<RouteTraffic[]>;
}
