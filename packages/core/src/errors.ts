/** One problem found in a request, addressed by its JSON path (`messages[3].to`). */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** Machine-readable error codes; each maps to one HTTP status. */
export type SpillwayErrorCode =
  | 'bad_request'
  | 'validation_failed'
  | 'unauthorized'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'internal'
  /** A feature this server was not set up for (its setting names it): not the client's fault, nor a fault. */
  | 'not_configured'
  /** A server this one depends on (the SMTP server) could not take the request now: retry later. */
  | 'upstream_unavailable';

const STATUS: Record<SpillwayErrorCode, number> = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  not_configured: 501,
  upstream_unavailable: 503,
};

/**
 * An error as a value: a code, the HTTP status it maps to, a human message and, for
 * validation errors, every offending path. The HTTP adapter turns it into the JSON error body.
 */
export class SpillwayError extends Error {
  readonly code: SpillwayErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;

  constructor(
    code: SpillwayErrorCode,
    message: string,
    details?: ErrorDetail[],
    /** `cause`: the error behind it, for the operator's log; never part of the answer. */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SpillwayError';
    this.code = code;
    this.status = STATUS[code];
    this.details = details;
  }

  /** The JSON error body of the interface: `{ error, message, status, details? }`. */
  toJSON(): { error: string; message: string; status: number; details?: ErrorDetail[] } {
    return {
      error: this.code,
      message: this.message,
      status: this.status,
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

/** Whether `value` is a {@link SpillwayError}: its `status`, `code` and `details` are then there to answer with. */
export function isSpillwayError(value: unknown): value is SpillwayError {
  return value instanceof SpillwayError;
}

/** Whether `value` is a `conflict` {@link SpillwayError} (a login taken, a key used for another request). */
export const isConflict = (value: unknown): boolean => value instanceof SpillwayError && value.code === 'conflict';
