import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Addresses a hosted service never sends a webhook to (api.md (H): "Private, loopback and
 * link-local addresses are never called"): they reach the operator's own network, not the
 * caller's. Special-purpose ranges of IANA's registries that are not public internet too.
 */
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
] as const) {
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64: translated by the operator's own network
  ['100::', 64], // discard
  ['2001::', 32], // Teredo: tunnels to whatever IPv4 address the relay decodes
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (private)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still private)
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

/** IPv6 forms that carry a public IPv4 address's route: NAT64 (64:ff9b::/96) and 6to4 (2002::/16). */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^64:ff9b::(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const words = expandIpv6(lower);
  if (!words) return null;
  const nat64 = words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0);
  if (nat64) return wordsToIpv4(words[6]!, words[7]!);
  if (words[0] === 0x2002) return wordsToIpv4(words[1]!, words[2]!);
  return null;
}

/**
 * The IPv4-compatible (::/96, deprecated) and IPv4-mapped (::ffff:0:0/96) forms: no receiver
 * on the internet is published under one, and each reaches an IPv4 address by a path of the
 * host's own. (Not in NOT_PUBLIC: Node's BlockList matches plain IPv4 addresses against them.)
 */
function wrapsIpv4(address: string): boolean {
  const lower = address.toLowerCase();
  if (/^::(ffff:)?\d+\.\d+\.\d+\.\d+$/.test(lower)) return true;
  const words = expandIpv6(lower);
  return !!words && words.slice(0, 5).every((w) => w === 0) && (words[5] === 0 || words[5] === 0xffff);
}

/** The addresses of this machine's interfaces: a receiver there is the operator's own, however public. */
function hostAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.replace(/%.*$/, '')));
}

function expandIpv6(address: string): number[] | null {
  if (address.includes('.')) return null;
  const [head, tail] = address.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((w) => parseInt(w, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const words = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : null;
}

const wordsToIpv4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/**
 * Whether `address` (an IP literal) is a public internet address, and none of `own` (by
 * default this machine's, read at each call: interfaces come and go).
 */
export function isPublicAddress(address: string, own: readonly string[] = hostAddresses()): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mine = new BlockList();
  for (const a of own) mine.addAddress(a, isIP(a) === 6 ? 'ipv6' : 'ipv4');
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (mine.check(address, type)) return false;
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4');
  if (wrapsIpv4(address)) return false;
  const v4 = embeddedIpv4(address);
  if (v4 !== null && (mine.check(v4, 'ipv4') || NOT_PUBLIC.check(v4, 'ipv4'))) return false;
  return !NOT_PUBLIC.check(address, 'ipv6');
}

export class NotPublicAddress extends Error {
  readonly code = 'ENOTPUBLIC';
}

/**
 * A `lookup` for the HTTPS agent that hands the socket only public addresses: the check
 * is made on the addresses the connection will use, in the same call, so there is no gap
 * for DNS rebinding between a check and the connect. A name that resolves to no public
 * address fails as a lookup error: the attempt fails and nothing is sent.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const allowed = addresses.filter((a) => isPublicAddress(a.address));
    if (allowed.length === 0) {
      const found = addresses.map((a) => a.address).join(', ');
      return callback(new NotPublicAddress(`${hostname} resolves to ${found}, not a public address`), '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
};
