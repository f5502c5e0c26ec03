import ipaddr from 'ipaddr.js';

/**
 * What an IP address is, for the guard of outgoing calls to client-supplied URLs: only `public`
 * addresses may be called (unless private URLs are allowed).
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'unspecified'
  | 'carrier-grade-nat'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'invalid';

/**
 * Ranges that embed an IPv4 address which the network may reach (NAT64, 6to4, Teredo, SIIT):
 * deny-by-default treats them as reserved rather than decode and trust the embedded address.
 */
const IPV6_TRANSLATION = new Set(['rfc6145', 'rfc6052', '6to4', 'teredo']);

function classOfRange(range: string): AddressClass {
  switch (range) {
    case 'unicast':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'private':
      return 'private';
    case 'linkLocal':
      // 169.254.0.0/16 holds the cloud metadata service (169.254.169.254).
      return 'link-local';
    case 'uniqueLocal':
      return 'unique-local';
    case 'unspecified':
      return 'unspecified';
    case 'carrierGradeNat':
      return 'carrier-grade-nat';
    case 'multicast':
      return 'multicast';
    case 'broadcast':
      return 'broadcast';
    default:
      // reserved, benchmarking, amt, as112, documentation, translation ranges, ... and any
      // range a later ipaddr.js names: refused, never assumed public.
      return 'reserved';
  }
}

/**
 * Classifies an IP address (IPv4, IPv6, IPv4-mapped IPv6 such as `::ffff:127.0.0.1`, with or
 * without brackets or a zone id). Only strictly formatted addresses are accepted: the shorthand
 * forms some resolvers take (`127.1`, `0x7f.0.0.1`, `2130706433`) are `invalid`, hence refused.
 *
 * @example classifyAddress('169.254.169.254') // 'link-local'
 */
export function classifyAddress(address: string): AddressClass {
  let text = address.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) parsed = ipaddr.IPv4.parse(text);
  else if (ipaddr.IPv6.isValid(text)) parsed = ipaddr.IPv6.parse(text);
  else return 'invalid';

  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // ::ffff:a.b.c.d reaches the IPv4 address a.b.c.d: judge that one.
    if (v6.isIPv4MappedAddress()) return classOfRange(v6.toIPv4Address().range());
    const range = v6.range();
    if (IPV6_TRANSLATION.has(range)) return 'reserved';
    return classOfRange(range);
  }
  return classOfRange((parsed as ipaddr.IPv4).range());
}

/** Whether an outgoing call may go to `address` (a `public` one). */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === 'public';
}
