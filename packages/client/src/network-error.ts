/**
 * A request that got no answer at all: the server refused the connection, its host is unknown,
 * the connection was reset. Node's `fetch` says only "fetch failed" and keeps the reason in
 * `cause`; this error says which request failed and why, and keeps fetch's error as its `cause`.
 *
 * @example
 * // GET http://127.0.0.1:8080/bat/balance: fetch failed (connect ECONNREFUSED 127.0.0.1:8080)
 * if (error instanceof SpillwayNetworkError && error.code === 'ECONNREFUSED') console.log('is the server running?');
 */
export class SpillwayNetworkError extends Error {
  /** The request's method. */
  readonly method: string;
  /** Where the request went: origin and path, without the query (which may carry a message's text). */
  readonly url: string;
  /** The system's error code when the cause has one: `ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, ... */
  readonly code: string | undefined;

  constructor(request: Request, error: Error) {
    const url = new URL(request.url);
    const where = `${url.origin}${url.pathname}`;
    const cause = error.cause as (Error & { code?: unknown; errors?: unknown }) | undefined;
    const reason = cause ? reasonOf(cause) : '';
    super(`${request.method} ${where}: ${error.message}${reason && reason !== error.message ? ` (${reason})` : ''}`, { cause: error });
    this.name = 'SpillwayNetworkError';
    this.method = request.method;
    this.url = where;
    this.code = typeof cause?.code === 'string' ? cause.code : undefined;
  }
}

/** The text of fetch's cause: its message, or those of the attempts it gathers (an AggregateError, one a resolved address), or its code. */
function reasonOf(cause: Error & { code?: unknown; errors?: unknown }): string {
  if (cause.message) return cause.message;
  const inner = Array.isArray(cause.errors) ? cause.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))) : [];
  if (inner.some(Boolean)) return inner.filter(Boolean).join('; ');
  return typeof cause.code === 'string' ? cause.code : '';
}

/**
 * A fetch whose network failures (the `TypeError` fetch rejects with) are
 * {@link SpillwayNetworkError}s naming the request and their cause. Aborts and other errors pass
 * as they are.
 */
export function describingNetworkErrors(fetch: (input: Request) => Promise<Response>): (input: Request) => Promise<Response> {
  return async (input) => {
    try {
      return await fetch(input);
    } catch (error) {
      throw error instanceof TypeError ? new SpillwayNetworkError(input, error) : error;
    }
  };
}
