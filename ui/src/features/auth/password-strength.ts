// The five checks, their labels and the message are the server's own (@berth/openapi/rules).
import { MIN_PASSWORD_SCORE, PASSWORD_RULES_MESSAGE, passwordScore } from '@berth/openapi/rules';

export {
  PASSWORD_CHECKS,
  type PasswordCheck,
  passwordScore,
} from '@berth/openapi/rules';
export { MIN_PASSWORD_SCORE };

export type StrengthLabel = 'Weak' | 'Fair' | 'Good' | 'Strong';

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
