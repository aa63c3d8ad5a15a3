import { describe, expect, it } from 'vitest';
import { BLOCKED_EGRESS, egressRoutes, inCidr } from './n8n-sandbox.ts';

/** The routes each n8n sandbox gets: what its workflows can and cannot connect to. */
describe('egress routes of an n8n instance', () => {
  const own = new Set(['192.0.2.2', '10.0.0.5', 'fe80::1']);

  it("blackholes private and reserved ranges and each of the host's own IPv4 addresses", () => {
    const routes = egressRoutes([], own, []);
    expect(routes).toEqual([
      ...BLOCKED_EGRESS.map((cidr) => ['blackhole', cidr]),
      ['blackhole', '192.0.2.2/32'],
      ['blackhole', '10.0.0.5/32'],
    ]);
  });

  it('lets through what the operator allows, but never the host itself', () => {
    const routes = egressRoutes(['10.0.0.0/8', '172.20.0.0/16'], own, []);
    expect(routes).not.toContainEqual(['blackhole', '10.0.0.0/8']);
    expect(routes).toContainEqual(['blackhole', '172.16.0.0/12']);
    expect(routes).toContainEqual(['10.0.0.0/8', 'via', '10.0.2.2']);
    expect(routes).toContainEqual(['172.20.0.0/16', 'via', '10.0.2.2']);
    // The host's own address in an allowed range stays blackholed (a /32 wins over the /8).
    expect(routes).toContainEqual(['blackhole', '10.0.0.5/32']);
  });

  it("keeps the host's nameservers reachable, unless one is the host itself or loopback", () => {
    const routes = egressRoutes([], own, [
      '10.255.255.53',
      '169.254.169.253',
      '127.0.0.53',
      '192.0.2.2',
      '1.1.1.1',
    ]);
    expect(routes).toContainEqual(['10.255.255.53/32', 'via', '10.0.2.2']);
    expect(routes).toContainEqual(['169.254.169.253/32', 'via', '10.0.2.2']);
    const allowed = routes.filter((route) => route[1] === 'via').map((route) => route[0]);
    expect(allowed).toEqual(['10.255.255.53/32', '169.254.169.253/32']);
  });

  it('tells whether an address lies in a range', () => {
    expect(inCidr('10.1.2.3', '10.0.0.0/8')).toBe(true);
    expect(inCidr('11.1.2.3', '10.0.0.0/8')).toBe(false);
    expect(inCidr('172.31.255.255', '172.16.0.0/12')).toBe(true);
    expect(inCidr('172.32.0.0', '172.16.0.0/12')).toBe(false);
    expect(inCidr('0.0.0.0', '0.0.0.0/0')).toBe(true);
  });
});
