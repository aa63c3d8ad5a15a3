import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  isLoopback,
  parseTrustedProxies,
  resolveClientAddress,
  type TrustedProxies,
} from './client-address.ts';

const trusted = (value: string): TrustedProxies => {
  const parsed = parseTrustedProxies(value);
  if ('invalid' in parsed) throw new Error(parsed.invalid);
  return parsed;
};

describe('parseTrustedProxies', () => {
  it('reads IPv4 and IPv6 CIDRs and single addresses', () => {
    const list = trusted(' 10.0.0.0/8, 127.0.0.1 ,fd00::/8, ::1');
    expect(list.cidrs).toEqual(['10.0.0.0/8', '127.0.0.1/32', 'fd00::/8', '::1/128']);
    expect(list.has('10.200.1.1')).toBe(true);
    expect(list.has('11.0.0.1')).toBe(false);
    expect(list.has('fd12::5')).toBe(true);
    expect(list.has('::1')).toBe(true);
    expect(list.has('not-an-ip')).toBe(false);
  });

  it("never trusts this host's own non-loopback addresses, even inside a trusted range", () => {
    // Tenants' outbound connections (n8n through pasta) come from them: a workflow must not be a proxy.
    const own = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && !entry.internal && entry.family === 'IPv4')?.address;
    if (!own) return console.warn('[skipped] this host has no non-loopback IPv4 address');
    const everything = trusted('0.0.0.0/0, 127.0.0.1');
    expect(everything.has(own)).toBe(false);
    expect(resolveClientAddress(own, '6.6.6.6', everything)).toEqual({ address: own, forwarded: false });
    // Loopback (a proxy on this host) and other addresses of the range still are.
    expect(everything.has('127.0.0.1')).toBe(true);
    expect(everything.has(own === '198.51.100.77' ? '198.51.100.78' : '198.51.100.77')).toBe(true);
  });

  it('trusts nothing when empty', () => {
    expect(trusted('').has('127.0.0.1')).toBe(false);
  });

  it.each(['10.0.0.0/33', 'fd00::/129', 'proxy.local', '10.0.0.0/8/1', '10.0.0.0/x', '1.2.3'])(
    'refuses %s',
    (value) => {
      expect(parseTrustedProxies(`127.0.0.1, ${value}`)).toEqual({ invalid: value });
    },
  );
});

describe('resolveClientAddress', () => {
  const proxies = trusted('10.0.0.0/8, 2001:db8::/32');

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(resolveClientAddress('203.0.113.9', '1.1.1.1', proxies)).toEqual({
      address: '203.0.113.9',
      forwarded: false,
    });
    expect(resolveClientAddress('10.0.0.2', '1.1.1.1', trusted(''))).toEqual({
      address: '10.0.0.2',
      forwarded: false,
    });
  });

  it('takes the right-most address that is not a trusted proxy', () => {
    // The client forged the left-most entry; the proxies appended the real one.
    expect(resolveClientAddress('10.0.0.2', '6.6.6.6, 198.51.100.7, 10.1.1.1', proxies)).toEqual({
      address: '198.51.100.7',
      forwarded: true,
    });
    expect(resolveClientAddress('2001:db8::1', '2606:4700::1, 2001:0db8::a', proxies).address).toBe(
      '2606:4700::1',
    );
    expect(resolveClientAddress('::ffff:10.0.0.2', '[2606:4700::1]:443', proxies).address).toBe(
      '2606:4700::1',
    );
    expect(resolveClientAddress('10.0.0.2', '198.51.100.7:5555', proxies).address).toBe('198.51.100.7');
  });

  it('takes the left-most when every hop is trusted, and stops at garbage', () => {
    expect(resolveClientAddress('10.0.0.2', '10.0.0.5, 10.0.0.4', proxies).address).toBe('10.0.0.5');
    expect(resolveClientAddress('10.0.0.2', '1.2.3.4, garbage', proxies).address).toBe('10.0.0.2');
  });

  it('normalises IPv4-mapped addresses, and says local without a socket', () => {
    expect(resolveClientAddress('::ffff:192.0.2.1', undefined, proxies).address).toBe('192.0.2.1');
    expect(resolveClientAddress(undefined, '1.1.1.1', proxies)).toEqual({
      address: 'local',
      forwarded: false,
    });
  });
});

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.9.9.9', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.1', false],
    ['::2', false],
    [undefined, false],
  ])('%s → %s', (address, expected) => {
    expect(isLoopback(address)).toBe(expected);
  });
});
