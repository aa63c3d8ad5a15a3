import type { User } from '@berth/openapi';
import { useContext } from 'react';
import { SessionContext, type SessionContextValue } from './session-provider.tsx';

export function useSession(): SessionContextValue {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession must be used inside SessionProvider');
  return session;
}

/** The signed-in user; only for screens behind the signed-in guard. */
export function useCurrentUser(): User {
  const { user } = useSession();
  if (!user) throw new Error('useCurrentUser needs a signed-in session');
  return user;
}
