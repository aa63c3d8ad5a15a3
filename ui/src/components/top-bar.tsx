import type { User } from '@berth/openapi';
import { Chip } from '@mui/material';
import { NotificationBell } from '../features/notifications/notification-bell.tsx';
import { planName } from '../features/subscription/standing.ts';
import { NavBar } from './nav-bar.tsx';
import type { AppLink } from './nav-link.ts';
import { ThemeToggle } from './theme-toggle.tsx';
import { UserMenu } from './user-menu.tsx';

/**
 * The signed-in top bar (spec customer-area §2.2): logo, main links (already filtered for this user),
 * plan badge, theme toggle, notification bell and account menu.
 */
export function TopBar({
  user,
  logoTo,
  links,
  onLogout,
}: {
  user: User;
  logoTo: string;
  links: readonly AppLink[];
  onLogout(): void;
}) {
  return (
    <NavBar logoTo={logoTo} links={links}>
      <Chip
        label={planName(user.subscription)}
        size="small"
        color="primary"
        variant="outlined"
        role="img"
        aria-label={`Plan: ${planName(user.subscription)}`}
      />
      <ThemeToggle />
      <NotificationBell />
      <UserMenu user={user} onLogout={onLogout} />
    </NavBar>
  );
}
