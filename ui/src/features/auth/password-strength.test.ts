import { describe, expect, it } from 'vitest';
import { PASSWORD_CHECKS, passwordScore, strengthLabel } from './password-strength.ts';

describe('password strength', () => {
  it.each([
    ['', 0, 'Weak'],
    ['abc', 1, 'Weak'],
    ['abcdefgh', 2, 'Weak'],
    ['abcdefgH', 3, 'Fair'],
    ['abcdefH1', 4, 'Good'],
    ['Ab1!', 4, 'Good'],
    ['abcdeH1!', 5, 'Strong'],
  ])('%j scores %i: %s', (password, score, label) => {
    expect(passwordScore(password)).toBe(score);
    expect(strengthLabel(score)).toBe(label);
  });

  it('has the five checks of the spec', () => {
    const passing = (password: string) =>
      PASSWORD_CHECKS.filter((check) => check.test(password)).map((check) => check.id);
    expect(passing('aaaaaaaa')).toEqual(['length', 'lowercase']);
    expect(passing('A')).toEqual(['uppercase']);
    expect(passing('7')).toEqual(['digit']);
    expect(passing(' ')).toEqual(['special']);
  });
});
