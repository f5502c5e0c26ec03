import { redirectKind, resolveLocation } from '@spillway/core/adapter';

/** What {@link fetchKeepingMethod} answers: the last answer, from `url`. */
export interface KeptMethodAnswer {
  response: Response;
  /** The URL that gave `response` (after the 307 and 308 redirects followed). */
  url: string;
  /**
   * Where a 301, 302 or 303 points (its `Location`, resolved against `url`): a redirect not
   * followed, since it asks for a GET without the body.
   */
  redirectedTo?: string;
}

/**
 * `fetch` following only the redirects that keep the method and the body, 307 and 308 (RFC 9110,
 * 15.4.8 and 15.4.9), at most `maxRedirects`. `fetch`'s own following turns a POST answered with
 * a 301, 302 or 303 into a GET without the body, and answers what the GET got: a 2xx there was
 * taken for an accepted send that no endpoint had received. Such a redirect is answered as it
 * came, with `redirectedTo`.
 */
export async function fetchKeepingMethod(
  doFetch: typeof fetch,
  url: string,
  init: RequestInit,
  maxRedirects = 3,
): Promise<KeptMethodAnswer> {
  let target = url;
  for (let redirects = 0; ; redirects++) {
    const response = await doFetch(target, { ...init, redirect: 'manual' });
    const location = response.headers.get('location');
    const kind = redirectKind(response.status);
    if (location === null || kind !== 'follow' || redirects >= maxRedirects) {
      return location !== null && kind === 'refuse'
        ? { response, url: target, redirectedTo: resolveLocation(location, target) }
        : { response, url: target };
    }
    // The redirect's own body is not read: release its connection.
    await response.body?.cancel();
    target = resolveLocation(location, target);
  }
}
