import { describe, expect, it } from 'vitest';
import { DATABASE_PASSWORD_LENGTH, generatePassword } from './generate-password.ts';

describe('generatePassword', () => {
  it('makes 18 characters by default with an upper, a lower, a digit and a symbol', () => {
    for (let i = 0; i < 200; i++) {
      const password = generatePassword();
      expect(password).toHaveLength(DATABASE_PASSWORD_LENGTH);
      expect(password).toMatch(/[A-Z]/);
      expect(password).toMatch(/[a-z]/);
      expect(password).toMatch(/\d/);
      expect(password).toMatch(/[^A-Za-z0-9]/);
      expect(password).toMatch(/^[\x21-\x7e]+$/);
    }
  });

  it('makes other lengths, and different passwords each time', () => {
    expect(generatePassword(16)).toHaveLength(16);
    expect(new Set(Array.from({ length: 50 }, () => generatePassword())).size).toBe(50);
  });
});
