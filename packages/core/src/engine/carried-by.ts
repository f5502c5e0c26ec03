/**
 * `report` (a send's result, a receipt or an incoming message) naming `driver` as the driver that
 * carried it, unless it names one already (the member of a nested composite named itself): `report`
 * itself then, else a copy. A composite (failover) driver names its members so, and the engine
 * files and records a receipt under the driver its acceptance named.
 *
 * @example carriedBy({ messageId: 7, step: 0, outcome: 'delivered' }, 'smpp-primary') // { ..., driver: 'smpp-primary' }
 */
export function carriedBy<T extends { driver?: string | undefined }>(report: T, driver: string): T {
  return report.driver ? report : { ...report, driver };
}
