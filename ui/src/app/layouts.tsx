import { Box, CircularProgress } from '@mui/material';
import { lazy, type ReactNode, Suspense, useEffect, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import { lazyWithQueries } from '../api/query-layer.ts';
import { AppFooter } from '../components/app-footer.tsx';
import { NavBar } from '../components/nav-bar.tsx';
import { PublicBar } from '../components/public-bar.tsx';
import { useSession } from '../features/session/use-session.ts';
import {
  existingLinks,
  footerGroups,
  isAffiliateArea,
  logoTarget,
  PUBLIC_BAR_LINKS,
  topBarLinksFor,
} from '../navigation/navigation.ts';
import { useScreenExists } from '../navigation/screen-exists.ts';

// Only for a visit with ?ref= (an affiliate's link): other visitors never download it.
const ReferralCapture = lazy(async () => ({
  default: (await import('../features/affiliate/referral-capture.tsx')).ReferralCapture,
}));

// Signed in only (bell, account menu, notification stream): visitors never download it.
const TopBar = lazyWithQueries(async () => (await import('./top-bar.tsx')).TopBar);

/** Fetches the signed-in top bar's code (while a stored session's profile loads). */
export const preloadTopBar = (): Promise<void> => TopBar.preload();

/** Where a page shows while its code loads: the footer stays below the fold meanwhile. */
function PageLoading() {
  return (
    <Box sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center' }}>
      <CircularProgress aria-label="Loading page" />
    </Box>
  );
}

function Frame({ bar, children }: { bar: ReactNode; children: ReactNode }) {
  const exists = useScreenExists();
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
      {bar}
      <Box component="main" sx={{ flexGrow: 1 }}>
        {children}
      </Box>
      <AppFooter groups={footerGroups(exists)} />
    </Box>
  );
}

/**
 * The common layout: the signed-in top bar when there is a user (inside the affiliate area its logo
 * leads to the affiliate dashboard and the main links hide), else the public bar.
 */
function SessionFrame({ children }: { children: ReactNode }) {
  const { user, logout } = useSession();
  const { pathname } = useLocation();
  const exists = useScreenExists();
  const logoTo = logoTarget(pathname, exists);
  const links = user && !isAffiliateArea(pathname) ? topBarLinksFor(user, exists) : [];
  const bar = user ? (
    // The bar without its right-hand controls until they load.
    <Suspense fallback={<NavBar logoTo={logoTo} links={links} />}>
      <TopBar user={user} logoTo={logoTo} links={links} onLogout={() => void logout()} />
    </Suspense>
  ) : (
    <PublicBar links={existingLinks(PUBLIC_BAR_LINKS, exists)} />
  );
  return <Frame bar={bar}>{children}</Frame>;
}

/** The affiliate code in `?ref=`, trimmed and upper-cased, if there is one. */
function referralCodeIn(search: string): string | undefined {
  return new URLSearchParams(search).get('ref')?.trim().toUpperCase() || undefined;
}

/**
 * The referral capture for a visit with ?ref=, mounted once the page is on screen: a prerendered page
 * was rendered without a query, and the first render in the browser must match that HTML to hydrate.
 * The code is noted as soon as it is seen, so a redirect that drops the query before the capture's
 * code has loaded (a signed-in user sent on from /affiliate/login) does not lose it.
 * Its own component, so that mounting it re-renders nothing else (an update above the page before the
 * page has hydrated would make React throw the prerendered markup away and render it again).
 */
function ReferralCaptureAfterMount() {
  const { search } = useLocation();
  const [code, setCode] = useState<string>();
  useEffect(() => {
    const seen = referralCodeIn(search);
    if (seen) setCode(seen);
  }, [search]);
  if (!code) return null;
  return (
    <Suspense fallback={null}>
      <ReferralCapture code={code} />
    </Suspense>
  );
}

export function SessionLayout() {
  return (
    <SessionFrame>
      <ReferralCaptureAfterMount />
      <Suspense fallback={<PageLoading />}>
        <Outlet />
      </Suspense>
    </SessionFrame>
  );
}
