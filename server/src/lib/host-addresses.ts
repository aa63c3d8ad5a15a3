import { networkInterfaces } from 'node:os';

/**
 * This host's own addresses on its network interfaces, loopback excluded (IPv4 and IPv6, normalised to
 * lower case). Tenants' outbound traffic leaves from the host (n8n through pasta's sockets), so it comes
 * *from* these addresses: they are never believed as a proxy (client-address.ts) and tenants cannot
 * connect *to* them (n8n-sandbox.ts). Read afresh at most every few seconds (interfaces come and go).
 */
let cached: { at: number; addresses: ReadonlySet<string> } | undefined;
const FRESH_MS = 5_000;

export function hostAddresses(now = Date.now()): ReadonlySet<string> {
  if (cached && now - cached.at < FRESH_MS) return cached.addresses;
  const addresses = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (!entry.internal) addresses.add(entry.address.toLowerCase());
    }
  }
  cached = { at: now, addresses };
  return addresses;
}
