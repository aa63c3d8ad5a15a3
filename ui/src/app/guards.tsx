import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useSession } from '../features/session/use-session.ts';

const SIGNED_IN_HOME = '/dashboard';

/** Where a visitor was headed before being sent to /login. */
interface FromState {
  from?: string;
}

/** The remembered origin, only when it is a path of this app (never '//host' or a full URL). */
function safeFrom(state: unknown): string | undefined {
  const from = (state as FromState | null)?.from;
  return typeof from === 'string' && from.startsWith('/') && !from.startsWith('//') ? from : undefined;
}

/** Anonymous visitors of a signed-in screen go to /login; the page they wanted is remembered. */
export function SignInFirst() {
  const location = useLocation();
  const from = `${location.pathname}${location.search}${location.hash}`;
  return <Navigate to="/login" replace state={{ from } satisfies FromState} />;
}

/** A redirect of the route table; `toOrigin` prefers the page remembered before sign-in. */
export function RedirectTo({
  to,
  toOrigin,
  keepQuery = false,
}: {
  to: string;
  toOrigin: boolean;
  keepQuery?: boolean;
}) {
  const location = useLocation();
  const target = (toOrigin && safeFrom(location.state)) || to;
  return <Navigate to={keepQuery ? `${target}${location.search}` : target} replace />;
}

/** Admin-only screens send everyone else to /dashboard. */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (user?.role !== 'admin') return <Navigate to={SIGNED_IN_HOME} replace />;
  return children;
}
