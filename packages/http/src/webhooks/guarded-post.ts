import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Clock } from '@spillway/core';
import { redirectKind, resolveLocation } from '@spillway/core/adapter';
import { classifyAddress } from './address-class.ts';
import type { AddressClass } from './address-class.ts';

/**
 * A client-supplied URL that may not be called: a scheme other than http(s), or a host that is
 * (or resolves to) a loopback, private, link-local or otherwise non-public address. Retrying
 * cannot help, so a delivery that meets it fails at once.
 */
export class UrlRefusedError extends Error {
  override readonly name = 'UrlRefusedError';
}

/** Options of {@link guardedPost}. */
export interface GuardedPostOptions {
  body: string;
  headers: Record<string, string>;
  /** Let calls reach loopback and private addresses (local development, tests). @default false */
  allowPrivateUrls?: boolean;
  /** The whole call, redirects included, must answer within this. @default 10000 */
  timeoutMs?: number;
  /** @default 3 */
  maxRedirects?: number;
  /** Times the call out; the engine's clock. */
  clock: Clock;
  /** Resolver, for tests. @default node:dns lookup */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
  /**
   * Which addresses may be called when private URLs are not allowed (an allow-list of internal
   * hosts, tests). @default only `public` addresses
   */
  allowAddress?: (address: string, kind: AddressClass) => boolean;
}

/** What answered the call, after redirects. */
export interface GuardedPostResult {
  status: number;
  url: string;
  /**
   * Where a redirect that is not followed points (a 301, 302 or 303 with a `Location`), resolved
   * against `url`: see {@link guardedPost}.
   */
  location?: string;
}

const systemResolve = (hostname: string): Promise<LookupAddress[]> =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

type AddressPolicy = (address: string, kind: AddressClass) => boolean;

const publicOnly: AddressPolicy = (_address, kind) => kind === 'public';

function refusalOf(address: string, host: string, allow: AddressPolicy): UrlRefusedError | null {
  const kind = classifyAddress(address);
  if (allow(address, kind)) return null;
  // The address a name resolves to is never echoed: it would map internal DNS for the caller.
  const article = kind === 'unspecified' || kind === 'invalid' ? 'an' : 'a';
  const what = address === host ? `${article} ${kind} address` : `${host}: it resolves to a non-public address`;
  return new UrlRefusedError(
    `refused to call ${what}; set SPILLWAY_ALLOW_PRIVATE_URLS=true (the reference server) or allowPrivateUrls: true (createSpillway) to allow it`,
  );
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that resolves every address of the host and refuses the lot if
 * one is not public. The connection uses the addresses checked here, so a DNS answer that
 * changes between a check and the connect (rebinding) cannot slip through.
 */
function guardedLookup(resolve: (hostname: string) => Promise<LookupAddress[]>, allow: AddressPolicy) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (all) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const addresses = family ? all.filter((a) => a.family === family) : all;
        if (addresses.length === 0) return callback(new Error(`${hostname} has no address`), []);
        for (const a of all) {
          const refused = refusalOf(a.address, hostname, allow);
          if (refused) return callback(refused, []);
        }
        if (options.all) return callback(null, addresses);
        const first = addresses[0]!;
        callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), []),
    );
  };
}

function checkUrl(raw: string, allowPrivate: boolean, allow: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefusedError(`not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UrlRefusedError(`refused the ${url.protocol} scheme of ${url.href}; only http and https`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // IP literals skip the lookup when connecting, so they are judged here.
  if (!allowPrivate && isIP(host)) {
    const refused = refusalOf(host, host, allow);
    if (refused) throw refused;
  }
  return url;
}

/** Options of {@link checkCallbackUrl}: the address policy of {@link guardedPost}. */
export type CallbackUrlPolicy = Pick<GuardedPostOptions, 'allowPrivateUrls' | 'resolve' | 'allowAddress'>;

/**
 * Checks a callback URL when it is set: http(s) only, and a host that is, or resolves only to,
 * public addresses (unless `allowPrivateUrls`). A name that does not resolve now is let through:
 * every delivery checks again, after resolution and on each redirect. Rejects with
 * {@link UrlRefusedError}, whose message never contains a resolved address.
 */
export async function checkCallbackUrl(raw: string, policy: CallbackUrlPolicy = {}): Promise<void> {
  const allowPrivate = policy.allowPrivateUrls ?? false;
  const allow = policy.allowAddress ?? publicOnly;
  const url = checkUrl(raw, allowPrivate, allow);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate || isIP(host)) return;
  let addresses: LookupAddress[];
  try {
    addresses = await (policy.resolve ?? systemResolve)(host);
  } catch {
    return;
  }
  for (const a of addresses) {
    const refused = refusalOf(a.address, host, allow);
    if (refused) throw refused;
  }
}

function postOnce(url: URL, options: GuardedPostOptions, signal: AbortSignal): Promise<{ status: number; location: string | undefined }> {
  const transport = url.protocol === 'https:' ? https : http;
  const lookup = options.allowPrivateUrls ? undefined : guardedLookup(options.resolve ?? systemResolve, options.allowAddress ?? publicOnly);
  return new Promise((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
        signal,
        // No pooled sockets: each call connects (and is checked) afresh, and nothing stays open.
        agent: false,
        ...(lookup ? { lookup: lookup as never } : {}),
      },
      (response) => {
        // Only the status matters; the receiver's body is not read.
        response.destroy();
        resolve({ status: response.statusCode ?? 0, location: response.headers.location });
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/**
 * POSTs `body` to a client-supplied URL, refusing non-public addresses unless `allowPrivateUrls`.
 * Follows at most `maxRedirects` 307 and 308 redirects by hand, which keep the method and the
 * body: each target is checked like the first, and the same signed POST is sent again. A 301, 302
 * or 303 is not followed: it asks for a GET without the body (a 303 by definition, the others as
 * user agents treat a POST), which would not deliver anything, and re-POSTing the body where it
 * points is not what it asks either. It is answered as it came, with its `location`, for the
 * caller to count as a failed call. Rejects with {@link UrlRefusedError} for a refused URL,
 * another Error for network failures and timeouts; any HTTP status is an answer.
 */
export async function guardedPost(rawUrl: string, options: GuardedPostOptions): Promise<GuardedPostResult> {
  const allowPrivate = options.allowPrivateUrls ?? false;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRedirects = options.maxRedirects ?? 3;
  const controller = new AbortController();
  const timer = options.clock.setTimeout(() => controller.abort(), timeoutMs);
  try {
    const allow = options.allowAddress ?? publicOnly;
    let url = checkUrl(rawUrl, allowPrivate, allow);
    for (let redirects = 0; ; redirects++) {
      const answer = await postOnce(url, options, controller.signal).catch((error: unknown) => {
        if (controller.signal.aborted) throw new Error(`no answer within ${timeoutMs} ms from ${url.href}`);
        throw error;
      });
      const kind = redirectKind(answer.status);
      if (!answer.location || kind !== 'follow') {
        const result: GuardedPostResult = { status: answer.status, url: url.href };
        if (answer.location && kind === 'refuse') result.location = resolveLocation(answer.location, url);
        return result;
      }
      if (redirects >= maxRedirects) throw new Error(`more than ${maxRedirects} redirects from ${rawUrl}`);
      url = checkUrl(resolveLocation(answer.location, url), allowPrivate, allow);
    }
  } finally {
    options.clock.clearTimeout(timer);
  }
}
