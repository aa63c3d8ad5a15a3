import { describe, expect, it } from 'vitest';
import { percentile } from './deploy-latency.ts';
import { checkPassword, generatePassword, tenantNames } from './tenant-names.ts';

describe('tenantNames', () => {
  it('maps an instance uuid to safe database and user names', () => {
    expect(tenantNames('3f2a9c1e-0b4d-4e8f-9a1b-2c3d4e5f6a7b')).toEqual({
      database: 't_3f2a9c1e_0b4d_4e8f_9a1b_2c3d4e5f6a7b',
      user: 'u_3f2a9c1e_0b4d_4e8f_9a1b_2c3d4e5f6a7b',
    });
  });

  it.each(['', 'A1', 'a_b', 'a b', "x'; DROP DATABASE y; --", 'x`y', 'x"y', 'é', 'a'.repeat(51)])(
    'refuses %j',
    (id) => {
      expect(() => tenantNames(id)).toThrow(/Invalid instance id/);
    },
  );
});

describe('passwords', () => {
  it('generates 32 URL-safe characters, different every time', () => {
    const passwords = new Set(Array.from({ length: 100 }, generatePassword));
    expect(passwords.size).toBe(100);
    for (const password of passwords) expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('accepts chosen passwords with quotes but not control characters or odd lengths', () => {
    expect(checkPassword(`it's "quoted" \\ ok`)).toBe(`it's "quoted" \\ ok`);
    for (const bad of ['short', 'x'.repeat(129), 'line\nbreak1', 'nul\u0000inside']) {
      expect(() => checkPassword(bad)).toThrow(/8 to 128 characters/);
    }
  });
});

describe('percentile', () => {
  it('uses the nearest rank', () => {
    const samples = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(percentile(samples, 50)).toBe(10);
    expect(percentile(samples, 95)).toBe(19);
    expect(percentile([], 50)).toBeNaN();
  });
});
