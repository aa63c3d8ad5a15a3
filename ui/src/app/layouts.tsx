import { Box } from '@mui/material';
import type { ReactNode } from 'react';
import { Outlet } from 'react-router';
import { AppFooter } from '../components/app-footer.tsx';
import { PublicBar } from '../components/public-bar.tsx';
import { TopBar } from '../components/top-bar.tsx';
import { useSession } from '../features/session/use-session.ts';
import { existingLinks, footerGroups, PUBLIC_BAR_LINKS, topBarLinksFor } from './navigation.ts';

function Frame({ bar, children }: { bar: ReactNode; children: ReactNode }) {
  return (
    <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
      {bar}
      <Box component="main" sx={{ flexGrow: 1 }}>
        {children}
      </Box>
      <AppFooter groups={footerGroups()} />
    </Box>
  );
}

/** The common layout: the signed-in top bar when there is a user, else the public bar. */
export function SessionFrame({ children }: { children: ReactNode }) {
  const { user, logout } = useSession();
  const bar = user ? (
    <TopBar user={user} links={topBarLinksFor(user)} onLogout={() => void logout()} />
  ) : (
    <PublicBar links={existingLinks(PUBLIC_BAR_LINKS)} />
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
