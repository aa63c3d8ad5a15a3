import { Box } from '@mui/material';
import type { ReactNode } from 'react';
import { Outlet, useLocation } from 'react-router';
import { AppFooter } from '../components/app-footer.tsx';
import { PublicBar } from '../components/public-bar.tsx';
import { TopBar } from '../components/top-bar.tsx';
import { useSession } from '../features/session/use-session.ts';
import {
  existingLinks,
  footerGroups,
  isAffiliateArea,
  logoTarget,
  PUBLIC_BAR_LINKS,
  topBarLinksFor,
} from './navigation.ts';
import { useScreenExists } from './screen-exists.ts';

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
export function SessionFrame({ children }: { children: ReactNode }) {
  const { user, logout } = useSession();
  const { pathname } = useLocation();
  const exists = useScreenExists();
  const bar = user ? (
    <TopBar
      user={user}
      logoTo={logoTarget(pathname, exists)}
      links={isAffiliateArea(pathname) ? [] : topBarLinksFor(user, exists)}
      onLogout={() => void logout()}
    />
  ) : (
    <PublicBar links={existingLinks(PUBLIC_BAR_LINKS, exists)} />
  );
  return <Frame bar={bar}>{children}</Frame>;
}

export function SessionLayout() {
  return (
    <SessionFrame>
      <Outlet />
    </SessionFrame>
  );
}
