/** The five checks of a registration password (spec customer-area §5); at least four must pass. */
export interface PasswordCheck {
  id: 'length' | 'lowercase' | 'uppercase' | 'digit' | 'special';
  label: string;
  test(password: string): boolean;
}

export const PASSWORD_CHECKS: readonly PasswordCheck[] = [
  { id: 'length', label: 'At least 8 characters', test: (p) => p.length >= 8 },
  { id: 'lowercase', label: 'One lowercase letter', test: (p) => /[a-z]/.test(p) },
  { id: 'uppercase', label: 'One uppercase letter', test: (p) => /[A-Z]/.test(p) },
  { id: 'digit', label: 'One number', test: (p) => /\d/.test(p) },
  { id: 'special', label: 'One special character', test: (p) => /[^A-Za-z0-9]/.test(p) },
];

export const MIN_PASSWORD_SCORE = 4;

export type StrengthLabel = 'Weak' | 'Fair' | 'Good' | 'Strong';

export function passwordScore(password: string): number {
  return PASSWORD_CHECKS.filter((check) => check.test(password)).length;
}

export const PASSWORD_RULES_MESSAGE = 'Password must meet all requirements below';

/**
 * The one check of a new password (registration, password change, reset), as the server makes it:
 * `requiredMessage` when empty, else the rules message unless four of the five checks pass.
 */
export function newPasswordError(password: string, requiredMessage: string): string | undefined {
  if (password.length === 0) return requiredMessage;
  return passwordScore(password) < MIN_PASSWORD_SCORE ? PASSWORD_RULES_MESSAGE : undefined;
}

/** Weak (2 or less), Fair (3), Good (4), Strong (5). */
export function strengthLabel(score: number): StrengthLabel {
  if (score <= 2) return 'Weak';
  if (score === 3) return 'Fair';
  if (score === 4) return 'Good';
  return 'Strong';
}
