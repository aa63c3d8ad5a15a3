import type { ComponentType } from 'react';
import { matchPath } from 'react-router';
import { LoginPage } from '../features/auth/login-page.tsx';
import { RegisterPage } from '../features/auth/register-page.tsx';
import { DashboardPage } from '../features/dashboard/dashboard-page.tsx';

/**
 * signed-in: behind the sign-in guard (anonymous visitors go to /login, origin remembered).
 * signed-out: signed-in users are sent on (to /dashboard). public: for everyone.
 */
export type RouteAccess = 'signed-in' | 'signed-out' | 'public';

export type AppRoute = {
  path: string;
  access: RouteAccess;
  /** Admins only; others are sent to /dashboard (spec customer-area §6). */
  adminOnly?: boolean;
} & ({ Component: ComponentType; redirectTo?: never } | { redirectTo: string; Component?: never });

/**
 * Every route of the app (spec customer-area §2.1), one line each. Any other path shows Not Found.
 * Links in the top bar, footer and Not Found screen appear once their path has a screen here.
 */
export const ROUTES: readonly AppRoute[] = [
  // The landing page comes later; until then / and /home lead to sign-in.
  { path: '/', access: 'signed-out', redirectTo: '/login' },
  { path: '/home', access: 'signed-out', redirectTo: '/login' },
  { path: '/login', access: 'signed-out', Component: LoginPage },
  { path: '/register', access: 'signed-out', Component: RegisterPage },
  { path: '/dashboard', access: 'signed-in', Component: DashboardPage },
];

/** Whether a screen (not just a redirect) answers `path`. */
export function hasScreen(path: string, routes: readonly AppRoute[] = ROUTES): boolean {
  const pathname = path.split(/[?#]/)[0] ?? path;
  return routes.some((route) => route.Component !== undefined && matchPath(route.path, pathname) !== null);
}
