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

/**
 * The IPv4 address an IPv6 address embeds, if any, and whether it is one of the forms this
 * host's own stack turns into an IPv4 connection (IPv4-mapped ::ffff:0:0/96, IPv4-translated
 * ::ffff:0:0:0/96, IPv4-compatible ::/96): no receiver on the internet is published under
 * one. The others are routed on to the IPv4 address by the network: NAT64 (64:ff9b::/96),
 * 6to4 (2002::/16, the address after the prefix) and Teredo (2001::/32, the client's address,
 * inverted, in the last 32 bits). (Local-use NAT64, 64:ff9b:1::/48, places it by a prefix
 * length only its network knows: that whole range is in NOT_PUBLIC.)
 */
export function embeddedIpv4(address: string): { ipv4: string; local: boolean } | null {
  const w = ipv6Words(address);
  if (!w) return null;
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  if (zero(0, 5) && w[5] === 0xffff) return { ipv4: v4(w[6]!, w[7]!), local: true };
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return { ipv4: v4(w[6]!, w[7]!), local: true };
  // :: and ::1 are the unspecified and loopback addresses of IPv6 itself (in NOT_PUBLIC).
  if (zero(0, 6) && !(w[6] === 0 && w[7]! <= 1)) return { ipv4: v4(w[6]!, w[7]!), local: true };
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return { ipv4: v4(w[6]!, w[7]!), local: false };
  if (w[0] === 0x2002) return { ipv4: v4(w[1]!, w[2]!), local: false };
  if (w[0] === 0x2001 && w[1] === 0) return { ipv4: v4(w[6]! ^ 0xffff, w[7]! ^ 0xffff), local: false };
  return null;
}

/** The eight 16-bit words of an IPv6 address (a dotted IPv4 tail included), or null for anything else. */
function ipv6Words(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const words = (part: string | undefined) => (part ? part.split(':').map((x) => parseInt(x, 16)) : []);
  const [left, right] = [words(head), words(tail)];
  return tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The addresses of this machine's interfaces: a receiver there is the operator's own, however public. */
function hostAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.replace(/%.*$/, '')));
}

/** A BlockList of `addresses` and `ranges` ("203.0.113.0/24", "2001:db8::/32", or one address). */
function blockListOf(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [net, prefix] = entry.split('/') as [string, string | undefined];
    const type = isIP(net) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(net, type);
    else list.addSubnet(net, Number(prefix), type);
  }
  return list;
}

/** Whether `list` holds `address`, or the IPv4 address it embeds. */
function holds(list: BlockList, address: string): boolean {
  if (list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')) return true;
  const inner = embeddedIpv4(address);
  return inner !== null && list.check(inner.ipv4, 'ipv4');
}

/**
 * Whether `address` (an IP literal) is a public internet address, and none of `own` (by
 * default this machine's, read at each call: interfaces come and go). An IPv6 address that
 * embeds an IPv4 address is judged by that one too.
 */
export function isPublicAddress(address: string, own: readonly string[] = hostAddresses()): boolean {
  const family = isIP(address);
  if (family === 0 || holds(blockListOf(own), address)) return false;
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4');
  const inner = embeddedIpv4(address);
  if (inner && (inner.local || NOT_PUBLIC.check(inner.ipv4, 'ipv4'))) return false;
  return !NOT_PUBLIC.check(address, 'ipv6');
}

/**
 * A webhook deny-list entry as the operator writes it: an IPv4 or IPv6 address, or a range
 * in CIDR form. Returns it as written; throws a RangeError saying what is wrong.
 */
export function checkDeniedRange(entry: string): string {
  const [net, prefix, ...rest] = entry.split('/');
  const family = isIP(net ?? '');
  const bits = family === 6 ? 128 : 32;
  if (family === 0 || rest.length > 0 || (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits))) {
    throw new RangeError(`Not an address or a range such as 203.0.113.0/24 or 2001:db8::/32: "${entry}"`);
  }
  return entry;
}

/** Whether `address` (an IP literal) is in one of the operator's `denied` ranges, or embeds an IPv4 address that is. */
export function isDeniedAddress(address: string, denied: readonly string[]): boolean {
  return denied.length > 0 && isIP(address) !== 0 && holds(blockListOf(denied), address);
}

/** A receiver the policy does not allow: the attempt fails and nothing is sent. */
export class NotPublicAddress extends Error {
  readonly code = 'ENOTPUBLIC';
}

/** Which receivers may be called: (H) only public internet addresses, unless the operator allows private ones; never one the operator denies. */
export interface AddressPolicy {
  publicOnly: boolean;
  /** The operator's deny-list (addresses and CIDR ranges), read at each connection: it may change while the service runs. */
  denied?: () => readonly string[];
}

/** Why a webhook may not be sent to `address` (an IP literal) under `policy`, or null when it may. */
export function addressRefusal(address: string, policy: AddressPolicy): string | null {
  if (isDeniedAddress(address, policy.denied?.() ?? [])) return "on the operator's deny-list";
  if (policy.publicOnly && !isPublicAddress(address)) return 'not a public address';
  return null;
}

/**
 * A `lookup` for the HTTPS agent that hands the socket only the addresses `policy` allows:
 * the check is made on the addresses the connection will use, in the same call, so there is
 * no gap for DNS rebinding between a check and the connect. A name that resolves to no
 * allowed address fails as a lookup error: the attempt fails and nothing is sent.
 */
export function checkedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const allowed = addresses.filter((a) => addressRefusal(a.address, policy) === null);
      if (allowed.length === 0) {
        const found = addresses.map((a) => a.address).join(', ');
        return callback(new NotPublicAddress(`${hostname} resolves to ${found}, ${addressRefusal(addresses[0]!.address, policy)}`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}
