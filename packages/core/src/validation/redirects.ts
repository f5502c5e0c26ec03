/**
 * What a client that POSTs a body (a webhook, a driver's send) does with an HTTP redirect:
 * `follow` a 307 or 308, which keep the method and the body (RFC 9110, 15.4.8 and 15.4.9);
 * `refuse` a 301, 302 or 303, which ask for a GET without the body (a 303 by definition, the others
 * as user agents treat a POST): following would deliver nothing; `none` for any other status.
 */
export function redirectKind(status: number): 'follow' | 'refuse' | 'none' {
  if (status === 307 || status === 308) return 'follow';
  if (status === 301 || status === 302 || status === 303) return 'refuse';
  return 'none';
}

/** A redirect's `Location` resolved against the URL that answered it (as given when it does not parse). */
export function resolveLocation(location: string, base: string | URL): string {
  try {
    return new URL(location, base).href;
  } catch {
    return location;
  }
}
