import type { User } from '@berth/openapi';
import { Chip } from '@mui/material';
import { InstanceCountsReporter } from '../features/instances/instance-counts-reporter.tsx';
import { NotificationBell } from '../features/notifications/notification-bell.tsx';
import { planName } from '../features/subscription/standing.ts';
import { usePlatform } from '../platform/platform-context.ts';
import { NavBar } from './nav-bar.tsx';
import type { AppLink } from './nav-link.ts';
import { ThemeToggle } from './theme-toggle.tsx';
import { UserMenu } from './user-menu.tsx';

/**
 * The signed-in top bar: logo, main links (already filtered for this user),
 * plan badge, theme toggle, notification bell and account menu. On a host with a tray (desktop) it also
 * keeps the tray's instance counts up to date.
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
  const { reportInstanceCounts } = usePlatform();
  return (
    <NavBar logoTo={logoTo} links={links}>
      {reportInstanceCounts && <InstanceCountsReporter report={reportInstanceCounts} />}
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
