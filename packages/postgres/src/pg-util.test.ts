import { describe, expect, it } from 'vitest';
import { isBusy, isUnavailable } from './pg-util.ts';

/** An error as node-postgres or Node raises it: a message and a `code`. */
const failure = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('isUnavailable', () => {
  it('is true for the errors of a database that cannot be reached, and only those', () => {
    for (const unreachable of [
      failure('terminating connection due to administrator command', '57P01'),
      failure('terminating connection due to crash of another server process', '57P02'),
      failure('the database system is shutting down', '57P03'),
      failure('sorry, too many clients already', '53300'),
      failure('connection failure', '08006'),
      failure('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      failure('read ECONNRESET', 'ECONNRESET'),
      failure('Connection terminated unexpectedly'),
      failure('Connection terminated'),
      failure('Connection terminated due to connection timeout'),
      failure('timeout exceeded when trying to connect'),
      failure('Cannot use a pool after calling end on the pool'),
      new AggregateError([failure('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''),
    ])
      expect(isUnavailable(unreachable), unreachable.message).toBe(true);
    for (const other of [failure('duplicate key', '23505'), failure('deadlock detected', '40P01'), new Error('plain'), 'text', null])
      expect(isUnavailable(other)).toBe(false);
    // Busy and unavailable are apart: a busy transaction wrote nothing, a dropped one may have.
    expect(isBusy(failure('terminating connection due to administrator command', '57P01'))).toBe(false);
  });
});
