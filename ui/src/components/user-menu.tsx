import type { User } from '@berth/openapi';
import { IconButton } from '@mui/material';
import { lazy, Suspense } from 'react';
import { useOpenedOnce } from './use-opened-once.ts';
import { useRouteScopedMenu } from './use-route-scoped-menu.ts';
import { initialsOf, UserAvatar } from './user-avatar.tsx';
import type { AccountMenuContent } from './user-menu-panel.tsx';

// The menu's code loads when a pointer or focus reaches the avatar (or at the latest on the first open).
const loadPanel = () => import('./user-menu-panel.tsx');
const UserMenuPanel = lazy(async () => ({ default: (await loadPanel()).UserMenuPanel }));
const preloadPanel = () => void loadPanel();

/** The avatar button and its account menu, which shows `content` (given by the app's shell). */
export function UserMenu({
  user,
  content,
  onLogout,
}: {
  user: User;
  content: AccountMenuContent;
  onLogout(): void;
}) {
  const menu = useRouteScopedMenu();
  const menuUsed = useOpenedOnce(menu.open);
  return (
    <>
      <IconButton
        // The initials are visible text of the button, so they belong in its name (WCAG 2.5.3).
        aria-label={`Account menu, ${initialsOf(user)}`}
        aria-haspopup="menu"
        aria-expanded={menu.open}
        onClick={menu.openMenu}
        onPointerEnter={preloadPanel}
        onFocus={preloadPanel}
        sx={{ p: 0.5 }}
      >
        <UserAvatar user={user} decorative />
      </IconButton>
      {menuUsed && (
        <Suspense fallback={null}>
          <UserMenuPanel
            user={user}
            content={content}
            open={menu.open}
            anchorEl={menu.anchorEl}
            onClose={menu.closeMenu}
            onLogout={onLogout}
          />
        </Suspense>
      )}
    </>
  );
}
