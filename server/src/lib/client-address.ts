import { BlockList, isIP } from 'node:net';
import { hostAddresses } from './host-addresses.ts';

/**
 * The proxies whose `X-Forwarded-For` is believed (TRUSTED_PROXY): CIDRs or single addresses, IPv4 and
 * IPv6. Empty: no proxy is trusted and the socket's address is the client's. This host's own
 * non-loopback addresses are never believed, even inside a trusted range: tenants' outbound
 * connections (an n8n workflow's requests) leave from them. A proxy on this host connects over
 * loopback.
 */
export interface TrustedProxies {
  has(address: string): boolean;
  /** The CIDRs as given (normalised), for logs. */
  readonly cidrs: readonly string[];
}

export const NO_TRUSTED_PROXIES: TrustedProxies = { has: () => false, cidrs: [] };

/** `::ffff:1.2.3.4` → `1.2.3.4`, so one client has one key whichever way its socket reports it. */
function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return (mapped?.[1] ?? address).toLowerCase();
}

/** One entry of X-Forwarded-For without a port or brackets, or undefined when it is not an IP address. */
function parseForwardedEntry(entry: string): string | undefined {
  let value = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed?.[1]) value = bracketed[1];
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(':'));
  return isIP(value) ? normalizeAddress(value) : undefined;
}

/**
 * Parses TRUSTED_PROXY ("10.0.0.0/8, 127.0.0.1, ::1, fd00::/8"). Answers the list, or the first entry
 * that is not an address or CIDR.
 */
export function parseTrustedProxies(value: string): TrustedProxies | { invalid: string } {
  const list = new BlockList();
  const cidrs: string[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const [address = '', prefixText, extra] = entry.split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (
      family === 0 ||
      extra !== undefined ||
      (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) ||
      prefix > max
    )
      return { invalid: entry };
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
    cidrs.push(`${address.toLowerCase()}/${prefix}`);
  }
  if (cidrs.length === 0) return NO_TRUSTED_PROXIES;
  return {
    cidrs,
    has(address) {
      const family = isIP(address);
      if (family === 0 || hostAddresses().has(address.toLowerCase())) return false;
      return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

export interface ClientAddress {
  /** The client's address: the socket's, or the right-most untrusted one of X-Forwarded-For. */
  address: string;
  /** Whether X-Forwarded-For was believed (the socket is a trusted proxy and the header was sent). */
  forwarded: boolean;
}

/**
 * The one rule for who the client is (rate limits, the bot check, logs): the socket's peer, unless that
 * peer is a trusted proxy; then X-Forwarded-For is walked from the right, skipping trusted proxies, and
 * the first address that is not one is the client (the left-most when all are trusted). An entry that
 * is not an address stops the walk at the proxy that sent it.
 */
export function resolveClientAddress(
  remote: string | undefined,
  forwardedFor: string | undefined,
  trusted: TrustedProxies,
): ClientAddress {
  const peer = remote ? normalizeAddress(remote) : 'local';
  if (!remote || !forwardedFor || !trusted.has(peer)) return { address: peer, forwarded: false };
  const hops = forwardedFor.split(',');
  let current = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseForwardedEntry(hops[i] ?? '');
    if (!hop) break;
    current = hop;
    if (!trusted.has(hop)) break;
  }
  return { address: current, forwarded: true };
}

const LOOPBACK = (() => {
  const list = new BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  return list;
})();

export function isLoopback(address: string | undefined): boolean {
  const family = address ? isIP(address) : 0;
  return family !== 0 && LOOPBACK.check(address as string, family === 4 ? 'ipv4' : 'ipv6');
}
