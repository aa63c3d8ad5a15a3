import type { User } from '@berth/openapi';
import { Chip } from '@mui/material';
import { NavBar } from '../components/nav-bar.tsx';
import type { AppLink } from '../components/nav-link.ts';
import { ThemeToggle } from '../components/theme-toggle.tsx';
import { UserMenu } from '../components/user-menu.tsx';
import { InstanceCountsReporter } from '../features/instances/instance-counts-reporter.tsx';
import { NotificationBell } from '../features/notifications/notification-bell.tsx';
import { AccountSummary } from '../features/subscription/account-summary.tsx';
import { planName } from '../features/subscription/standing.ts';
import { SETTINGS_PATH } from '../navigation/navigation.ts';
import { useScreenExists } from '../navigation/screen-exists.ts';
import { usePlatform } from '../platform/platform-context.ts';

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
  // The desktop app's Settings (server URL); the web has no such screen.
  const hasSettings = useScreenExists()(SETTINGS_PATH);
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
      <UserMenu
        user={user}
        content={{
          details: <AccountSummary user={user} />,
          settingsTo: hasSettings ? SETTINGS_PATH : undefined,
        }}
        onLogout={onLogout}
      />
    </NavBar>
  );
}
