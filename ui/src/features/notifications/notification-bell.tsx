import NotificationsIcon from '@mui/icons-material/Notifications';
import { Badge, IconButton } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback } from 'react';
import { useInstanceEventHandler } from '../../api/instances.queries.ts';
import { type Notification, useNotificationsQuery } from '../../api/notifications.queries.ts';
import { helpKeys, notificationKeys } from '../../api/query-keys.ts';
import { useUsageEventHandler } from '../../api/usage.queries.ts';
import { useOpenedOnce } from '../../components/use-opened-once.ts';
import { useRouteScopedMenu } from '../../components/use-route-scoped-menu.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import { notificationTarget } from './notification-target.ts';
import { useNotificationStream } from './use-notification-stream.ts';

// The panel's code loads when a pointer or focus reaches the bell (or at the latest on the first open).
const loadPanel = () => import('./notification-panel.tsx');
const NotificationPanel = lazy(async () => ({ default: (await loadPanel()).NotificationPanel }));
const preloadPanel = () => void loadPanel();

/** The unread count as the badge shows it: 9+ above 9. */
export const badgeText = (unread: number) => (unread > 9 ? '9+' : String(unread));

/**
 * The bell of the top bar: unread count, and a panel to read, mark and
 * delete. The list reloads every 60 s and on each live-stream message; new ones also go to the host's
 * system notifications (a click there opens the screen of their kind); instance status changes on the same stream update the instance queries. Errors
 * of these calls are silently ignored.
 */
export function NotificationBell() {
  const panel = useRouteScopedMenu();
  const platform = usePlatform();
  const queryClient = useQueryClient();
  const list = useNotificationsQuery();
  const panelUsed = useOpenedOnce(panel.open);

  const onMessage = useCallback(
    (notification: Notification | null) => {
      void queryClient.invalidateQueries({ queryKey: notificationKeys.list() });
      // Support answered: the ticket lists of /get-help are stale.
      if (notification?.type === 'helpdesk')
        void queryClient.invalidateQueries({ queryKey: helpKeys.mine() });
      if (notification)
        platform.notify(notification.title, notification.message, notificationTarget(notification.type));
    },
    [queryClient, platform],
  );
  // The one live stream of the app also keeps the instance screens and their usage charts up to date.
  const onInstance = useInstanceEventHandler();
  const onUsage = useUsageEventHandler();
  useNotificationStream({ onMessage, onInstance, onUsage });

  const items = list.data?.items ?? [];
  const unread = list.data?.unread ?? 0;
  const label = unread > 0 ? `Notifications, ${unread} unread` : 'Notifications';

  return (
    <>
      <IconButton
        aria-label={label}
        aria-haspopup="dialog"
        aria-expanded={panel.open}
        onClick={panel.openMenu}
        onPointerEnter={preloadPanel}
        onFocus={preloadPanel}
        color="inherit"
      >
        <Badge badgeContent={badgeText(unread)} invisible={unread === 0} color="error" aria-hidden>
          <NotificationsIcon />
        </Badge>
      </IconButton>
      {panelUsed && (
        <Suspense fallback={null}>
          <NotificationPanel
            open={panel.open}
            anchorEl={panel.anchorEl}
            onClose={panel.closeMenu}
            items={items}
            unread={unread}
          />
        </Suspense>
      )}
    </>
  );
}
