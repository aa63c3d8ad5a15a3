import { lazy, Suspense, useEffect, useMemo } from 'react';
import { Route, Routes, useLocation } from 'react-router';
import { LoadingScreen } from '../components/loading-screen.tsx';
import { preloadProfileQuery } from '../features/session/session-provider.tsx';
import { useSession } from '../features/session/use-session.ts';
import { existingLinks, firstExisting, NOT_FOUND_LINKS, notFoundContext } from '../navigation/navigation.ts';
import { ScreenExistsContext, useScreenExists } from '../navigation/screen-exists.ts';
import { usePlatform } from '../platform/platform-context.ts';
import { RedirectTo, RequireAdmin, SignInFirst } from './guards.tsx';
import { preloadTopBar, SessionLayout } from './layouts.tsx';
import {
  PROTECTED_PATHS,
  preloadScreen,
  type RouteEntry,
  type RouteTable,
  resolveRoute,
  SIGNED_IN_ROUTES,
  tableFor,
  withHostScreens,
} from './route-table.tsx';
import { useHostRouteRequests } from './use-host-route-requests.ts';

// Screens no page starts with: loaded when shown, so the first load of every page is lighter. Not
// Found shows inside the layout's Suspense (its spinner), the session error screen in its own.
const NotFoundPage = lazy(async () => ({
  default: (await import('../features/not-found/not-found-page.tsx')).NotFoundPage,
}));
const SessionErrorScreen = lazy(async () => ({
  default: (await import('../features/session/session-error-screen.tsx')).SessionErrorScreen,
}));

function RouteElement({ entry, table }: { entry: RouteEntry; table: RouteTable }) {
  const route = resolveRoute(entry.path, table);
  if (!route) return null;
  if (route.kind === 'redirect')
    return <RedirectTo to={route.to} toOrigin={route.toOrigin} keepQuery={route.keepQuery} />;
  const { Component } = route;
  return route.adminOnly ? (
    <RequireAdmin>
      <Component />
    </RequireAdmin>
  ) : (
    <Component />
  );
}

/** Not Found for the visitor's context: signed in or not, inside the affiliate area or not. */
function NotFoundRoute() {
  const { user } = useSession();
  const { pathname } = useLocation();
  const exists = useScreenExists();
  const links = NOT_FOUND_LINKS[notFoundContext(user !== null, pathname)];
  return (
    <NotFoundPage
      home={firstExisting(links.home, exists)}
      quickLinks={existingLinks(links.quickLinks, exists)}
    />
  );
}

/**
 * Fetches the code a signed-in page at `path` renders with (its screen, the top bar, the profile query
 * and the query layer, whose client then starts from the server's data), so that React
 * hydrates the server's markup of it in one pass (web/src/main.tsx waits for it).
 */
export async function preloadSignedInPage(path: string): Promise<void> {
  await Promise.all([preloadScreen(path, SIGNED_IN_ROUTES), preloadTopBar(), preloadProfileQuery()]);
}

/**
 * The route table of the session (signed in or signed out) with its redirects; anonymous visitors of
 * a signed-in screen go to /login first; any other path is Not Found. A spinner (or a retry screen)
 * shows while the session loads. The host's own screens (desktop Settings) join the table, and the host
 * may ask for a route (a clicked system notification).
 */
export function AppRoutes() {
  const { status } = useSession();
  const platform = usePlatform();
  const signedIn = status === 'authenticated';
  const table = useMemo(() => withHostScreens(tableFor(signedIn), platform), [signedIn, platform]);
  useHostRouteRequests();
  // A stored session's profile is loading: fetch the code of the signed-in screen of this address and
  // of the top bar meanwhile, instead of after the profile (a visitor's session is never 'loading' on
  // the web).
  const { pathname } = useLocation();
  const loading = status === 'loading';
  useEffect(() => {
    if (!loading) return;
    void preloadScreen(pathname, SIGNED_IN_ROUTES);
    void preloadTopBar();
  }, [loading, pathname]);
  const exists = useMemo(() => (path: string) => resolveRoute(path, table)?.kind === 'screen', [table]);

  if (status === 'loading') return <LoadingScreen />;
  if (status === 'error')
    return (
      <Suspense fallback={<LoadingScreen />}>
        <SessionErrorScreen />
      </Suspense>
    );
  return (
    <ScreenExistsContext.Provider value={exists}>
      <Routes>
        <Route element={<SessionLayout />}>
          {table.map((entry) => (
            <Route
              key={entry.path}
              path={entry.path}
              element={<RouteElement entry={entry} table={table} />}
            />
          ))}
          {!signedIn &&
            PROTECTED_PATHS.map((path) => <Route key={path} path={path} element={<SignInFirst />} />)}
          <Route path="*" element={<NotFoundRoute />} />
        </Route>
      </Routes>
    </ScreenExistsContext.Provider>
  );
}
