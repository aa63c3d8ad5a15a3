import { type AuthDeps, authContext } from './auth.context.ts';
import { createProfiles } from './profiles.service.ts';
import { createRegistration } from './registration.service.ts';
import { createSessions } from './sessions.service.ts';

export type AuthService = ReturnType<typeof createAuthService>;

/**
 * Accounts, one service per concern over a shared context (auth.context.ts: the API's user, the token
 * pair): sign-up and the first admin (registration.service.ts), signing in and out, refresh and the
 * password change (sessions.service.ts), and the profile (profiles.service.ts).
 */
export function createAuthService(deps: AuthDeps) {
  const ctx = authContext(deps);
  return {
    ...createRegistration(deps, ctx),
    ...createSessions(deps, ctx),
    ...createProfiles(deps, ctx),
  };
}
