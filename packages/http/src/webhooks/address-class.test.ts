import { describe, expect, it } from 'vitest';
import { classifyAddress, isPublicAddress } from './address-class.ts';
import type { AddressClass } from './address-class.ts';

const cases: Array<[string, AddressClass]> = [
  // IPv4
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['172.32.0.1', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['100.64.0.1', 'carrier-grade-nat'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['240.0.0.1', 'reserved'],
  // IPv6
  ['2001:4860:4860::8888', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  // IPv6 forms that carry an IPv4 address
  ['64:ff9b::a00:1', 'reserved'],
  ['2002:a00:1::1', 'reserved'],
  // IPv4-mapped IPv6: judged by the IPv4 address, in dotted and hex form
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:8.8.8.8', 'public'],
  ['[::ffff:192.168.0.1]', 'private'],
  // Not strict addresses: refused rather than guessed
  ['127.1', 'invalid'],
  ['2130706433', 'invalid'],
  ['0x7f.0.0.1', 'invalid'],
  ['017700000001', 'invalid'],
  ['example.com', 'invalid'],
  ['', 'invalid'],
];

describe('classifyAddress', () => {
  it.each(cases)('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('calls only public addresses public', () => {
    const publics = cases.filter(([, kind]) => kind === 'public').map(([a]) => a);
    for (const [address] of cases) expect(isPublicAddress(address)).toBe(publics.includes(address));
  });
});
