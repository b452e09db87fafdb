import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Refused } from '../../../shared/failures.js';

/*
 * Where a webhook may be sent. A receiver URL is chosen by whoever holds a key, so without these
 * rules the server could be made to call its own loopback, the private network behind it, or a
 * cloud metadata address (169.254.169.254). The name is resolved, every address it resolves to is
 * checked, and the connection is made to the checked address (never a second lookup that could
 * answer differently). WEBHOOK_ALLOW_PRIVATE=true lifts the address rule and allows plain http
 * (tests, local set-ups).
 */

/**
 * A receiver URL refused by these rules: a refusal of `url` (the endpoint's field), its `rule`
 * saying which (`absolute_url`, `scheme`, `credentials`, `fragment`, `unresolvable`,
 * `non_public_address`) and `reason` the sentence (a delivery logs it as its error).
 */
export class WebhookTargetRefused extends Refused {
  readonly rule: string;
  readonly reason: string;

  constructor(rule: string, reason: string) {
    super([{ path: ['url'], rule, message: reason }]);
    this.name = 'WebhookTargetRefused';
    this.rule = rule;
    this.reason = reason;
  }
}

export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Checks the URL's form (scheme, no credentials); throws WebhookTargetRefused saying why. */
export function parseWebhookUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookTargetRefused('absolute_url', 'must be an absolute URL such as https://example.com/webhooks');
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol))
    throw new WebhookTargetRefused('scheme', allowPrivate ? 'must be an http or https URL' : 'must be an https URL');
  if (url.username || url.password) throw new WebhookTargetRefused('credentials', 'must not carry credentials');
  if (url.hash) throw new WebhookTargetRefused('fragment', 'must not have a #fragment');
  return url;
}

/** Resolves the URL's host and checks every address; answers the address to connect to. */
export async function resolveWebhookTarget(url: URL, allowPrivate: boolean, resolver: Resolver = systemResolver): Promise<ResolvedTarget> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolver(host);
    } catch {
      throw new WebhookTargetRefused('unresolvable', `host ${host} could not be resolved`);
    }
  }
  if (addresses.length === 0) throw new WebhookTargetRefused('unresolvable', `host ${host} could not be resolved`);
  if (!allowPrivate) {
    for (const { address } of addresses) {
      if (isNonPublicAddress(address))
        throw new WebhookTargetRefused('non_public_address', `resolves to ${address}, a loopback, private or reserved address`);
    }
  }
  const first = addresses[0] as { address: string; family: number };
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

function ipv4Number(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const ipv4Refused: [string, number][] = [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

function isNonPublicIpv4(address: string): boolean {
  const n = ipv4Number(address);
  return ipv4Refused.some(([base, bits]) => {
    const size = 2 ** (32 - bits);
    const start = ipv4Number(base);
    return n >= start && n < start + size;
  });
}

/** The 8 groups of an IPv6 address as numbers (with an embedded IPv4 tail expanded). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0] as string;
  const v4 = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    const n = ipv4Number(v4[1] as string);
    text = `${text.slice(0, -(v4[1] as string).length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array(missing).fill('0'), ...tailGroups].map((group) => Number.parseInt(group || '0', 16));
}

function isNonPublicIpv6(address: string): boolean {
  const g = ipv6Groups(address);
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const embeddedV4 = () => `${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`;
  if (g.every((x) => x === 0)) return true; // ::
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 1) return true; // ::1
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return isNonPublicIpv4(embeddedV4()); // ::ffff:a.b.c.d
  if (g0 === 0x64 && g1 === 0xff9b) return isNonPublicIpv4(embeddedV4()); // NAT64
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return true; // site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return true; // multicast
  if (g0 === 0x2001 && g1 === 0x0db8) return true; // documentation
  return false;
}

/** True for loopback, private, link-local, unique-local, multicast and reserved addresses. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address.split('%')[0] as string);
  if (family === 4) return isNonPublicIpv4(address);
  if (family === 6) return isNonPublicIpv6(address);
  return true;
}
