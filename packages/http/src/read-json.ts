import { SpillwayError } from '@spillway/core';
import { holdsNul, markWellFormed, nulError, wellFormedDeep } from '@spillway/core/adapter';
import type { Context } from 'hono';

// The request content types of interface section 4: application/json, application/json-patch+json,
// text/json and any application/*+json, each with optional parameters (charset).
const JSON_CONTENT_TYPE = /^\s*(?:application\/json|text\/json|application\/[a-z0-9!#$&^_.-]+\+json)\s*(?:;.*)?$/i;

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/**
 * Whether a `Content-Type` header names one of the accepted JSON media types, in UTF-8: JSON is
 * UTF-8 (RFC 8259), and a body declared in another charset would be read wrong, not refused.
 */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  if (!contentType || !JSON_CONTENT_TYPE.test(contentType)) return false;
  const charset = CHARSET.exec(contentType)?.[1];
  return charset === undefined || /^utf-?8$/i.test(charset);
}

/**
 * Reads the request body as JSON. Every route with a body uses it, so the answers are the same
 * everywhere: 415 `unsupported_media_type` for another content type, 400 `bad_request` for an
 * empty or malformed body. (The size limit is enforced earlier, by the app's body-limit middleware.)
 */
export async function readJson(c: Context): Promise<unknown> {
  return parseJsonBody(await readJsonText(c));
}

/**
 * {@link readJson} for a route whose body is optional: a request with no body at all (nothing, or
 * only white space, whatever its Content-Type says) reads as `{}`, as `curl -X POST` sends it.
 */
export async function readOptionalJson(c: Context): Promise<unknown> {
  const text = await requestText(c);
  return text.trim() ? parseJsonText(c, text) : {};
}

/**
 * The JSON of a body already read as text ({@link requestText}), with {@link readJson}'s answers:
 * for a route that looks at the body before it knows it must be JSON.
 */
export function parseJsonText(c: Context, text: string): unknown {
  requireJsonContentType(c);
  return parseJsonBody(text);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A request body's bytes as text, refused (400 `bad_request`) when they are not UTF-8: a body in
 * Latin-1 or Windows-1252 that does not say so would otherwise be read with U+FFFD in place of its
 * letters, and sent so ("Caf\uFFFD"). A leading byte order mark is dropped.
 */
export function utf8Text(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new SpillwayError(
      'bad_request',
      'Request body is not valid UTF-8: JSON is UTF-8 (RFC 8259); encode the text in UTF-8, not Latin-1 or Windows-1252',
    );
  }
}

/**
 * The request body as text, {@link utf8Text}'s 400 for bytes that are not UTF-8. Read the body
 * through it (not `c.req.text()`, whose U+FFFD would be cached for every later read).
 */
export async function requestText(c: Context): Promise<string> {
  return utf8Text(new Uint8Array(await c.req.arrayBuffer()));
}

/** {@link readJson}'s 415 for a request whose Content-Type is not JSON in UTF-8. */
function requireJsonContentType(c: Context): void {
  const contentType = c.req.header('content-type');
  if (!isJsonContentType(contentType)) {
    throw new SpillwayError(
      'unsupported_media_type',
      `Content-Type must be application/json (or text/json, application/*+json) in UTF-8; got ${contentType ? `'${contentType}'` : 'none'}`,
    );
  }
}

/** The text of a JSON request body, unparsed: {@link readJson}'s 415 for another content type. */
export async function readJsonText(c: Context): Promise<string> {
  requireJsonContentType(c);
  return requestText(c);
}

/**
 * The length a request body declares, when its size can be judged before reading it: a numeric
 * `Content-Length` and no `Transfer-Encoding` (Node's parser never lets a body run past its
 * `Content-Length`). Null for a streamed body, which can only be counted while it is read.
 */
export function declaredBodyLength(contentLength: string | null, transferEncoding: boolean): number | null {
  return contentLength !== null && /^\d+$/.test(contentLength) && !transferEncoding ? Number(contentLength) : null;
}

/** The escape of a UTF-16 surrogate (`\ud800` to `\udfff`) in JSON text: a pair (an emoji) is two. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Parses a request body's text, with the 400s of {@link readJson} for an empty or malformed one,
 * and a 400 `validation_failed` at its path for a string holding the NUL character (U+0000),
 * which JSON can carry only escaped (`\u0000`): looked for only when the text has that escape.
 * Every string and member name is made well-formed, a lone UTF-16 surrogate replaced by U+FFFD
 * (`wellFormed`): no storage keeps one, and a channel cannot encode it, so that what is stored,
 * compared on a replay and sent is the same on every storage. The body is marked so
 * (`markWellFormed`): the engine's entry points, which do the same for their other callers, take
 * it as it is.
 */
export function parseJsonBody(text: string): unknown {
  if (!text.trim()) throw new SpillwayError('bad_request', 'Request body is empty; a JSON document is required');
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (error) {
    throw new SpillwayError('bad_request', `Malformed JSON: ${(error as Error).message}`);
  }
  if (text.includes('\\u0000') && holdsNul(body)) throw nulError(body, '(body)');
  // JSON carries a lone surrogate only as an escape: only then are its strings walked. The engine
  // is told, so that its entry points do not look at them again (a 5000-message send).
  if (SURROGATE_ESCAPE.test(text)) body = wellFormedDeep(body);
  return markWellFormed(body);
}
