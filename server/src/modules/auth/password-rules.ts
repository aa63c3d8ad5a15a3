/** The five checks of the registration password (spec customer-area §5); at least four must pass. */
export const PASSWORD_CHECKS: ReadonlyArray<(password: string) => boolean> = [
  (p) => p.length >= 8,
  (p) => /[a-z]/.test(p),
  (p) => /[A-Z]/.test(p),
  (p) => /\d/.test(p),
  (p) => /[^A-Za-z0-9]/.test(p),
];

export function passwordScore(password: string): number {
  return PASSWORD_CHECKS.filter((check) => check(password)).length;
}

export const isStrongEnough = (password: string) => passwordScore(password) >= 4;

/** The one message for a password failing the checks (registration, change and reset alike). */
export const PASSWORD_RULES_MESSAGE = 'Password must meet all requirements below';
