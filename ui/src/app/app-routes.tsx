import { Navigate, Route, Routes } from 'react-router';
import { LoadingScreen } from '../components/loading-screen.tsx';
import { NotFoundPage } from '../features/not-found/not-found-page.tsx';
import { SessionErrorScreen } from '../features/session/session-error-screen.tsx';
import { useSession } from '../features/session/use-session.ts';
import { RequireAdmin, RequireSignedIn, RequireSignedOut, SIGNED_IN_HOME } from './guards.tsx';
import { SessionLayout } from './layouts.tsx';
import { existingLinks, NOT_FOUND_LINKS } from './navigation.ts';
import { type AppRoute, ROUTES, type RouteAccess } from './route-table.tsx';

function screenOf(route: AppRoute) {
  if (route.redirectTo !== undefined) return <Navigate to={route.redirectTo} replace />;
  const { Component } = route;
  return route.adminOnly ? (
    <RequireAdmin>
      <Component />
    </RequireAdmin>
  ) : (
    <Component />
  );
}

const routesFor = (access: RouteAccess) =>
  ROUTES.filter((route) => route.access === access).map((route) => (
    <Route key={route.path} path={route.path} element={screenOf(route)} />
  ));

function NotFoundRoute() {
  const { user } = useSession();
  return user ? (
    <NotFoundPage
      home={{ label: 'Go to Dashboard', to: SIGNED_IN_HOME }}
      quickLinks={existingLinks(NOT_FOUND_LINKS.signedIn)}
    />
  ) : (
    <NotFoundPage
      home={{ label: 'Go Home', to: '/' }}
      quickLinks={existingLinks(NOT_FOUND_LINKS.anonymous)}
    />
  );
}

/** The route table rendered behind its guards; a spinner (or a retry screen) while the session loads. */
export function AppRoutes() {
  const { status } = useSession();
  if (status === 'loading') return <LoadingScreen />;
  if (status === 'error') return <SessionErrorScreen />;
  return (
    <Routes>
      <Route element={<SessionLayout />}>
        <Route element={<RequireSignedOut />}>{routesFor('signed-out')}</Route>
        <Route element={<RequireSignedIn />}>{routesFor('signed-in')}</Route>
        {routesFor('public')}
        <Route path="*" element={<NotFoundRoute />} />
      </Route>
    </Routes>
  );
}
