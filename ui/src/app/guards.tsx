import type { ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { useSession } from '../features/session/use-session.ts';

export const SIGNED_IN_HOME = '/dashboard';

/** Where a visitor was headed before being sent to /login. */
export interface FromState {
  from?: string;
}

function safeFrom(state: unknown): string | undefined {
  const from = (state as FromState | null)?.from;
  // Only same-app paths: never '//host' or a full URL.
  return typeof from === 'string' && from.startsWith('/') && !from.startsWith('//') ? from : undefined;
}

/** Anonymous visitors go to /login; the page they wanted is remembered for after sign-in. */
export function RequireSignedIn() {
  const { status } = useSession();
  const location = useLocation();
  if (status !== 'authenticated') {
    const from = `${location.pathname}${location.search}${location.hash}`;
    return <Navigate to="/login" replace state={{ from } satisfies FromState} />;
  }
  return <Outlet />;
}

/** Signed-in users leave the signed-out pages: back to where they were headed, else /dashboard. */
export function RequireSignedOut() {
  const { status } = useSession();
  const location = useLocation();
  if (status === 'authenticated') return <Navigate to={safeFrom(location.state) ?? SIGNED_IN_HOME} replace />;
  return <Outlet />;
}

/** Admin-only screens send everyone else to /dashboard (spec customer-area §6). */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (user?.role !== 'admin') return <Navigate to={SIGNED_IN_HOME} replace />;
  return children;
}
