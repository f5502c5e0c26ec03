import { ApiError } from './api-client.ts';

/**
 * A failure as the designer shows it: the message, then each of an API error's details as
 * `path: message`, so a refused request says what was wrong with it.
 * @example describeError(error) // 'The cascade request is invalid: [0].fromName: alpha-name "NotMine" is not…'
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (!(error instanceof ApiError) || error.details.length === 0) return error.message;
  const details = error.details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message));
  return `${error.message}: ${details.join('; ')}`;
}
