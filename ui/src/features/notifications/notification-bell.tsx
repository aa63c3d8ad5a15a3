import CloseIcon from '@mui/icons-material/Close';
import NotificationsIcon from '@mui/icons-material/Notifications';
import {
  Badge,
  Box,
  Button,
  Divider,
  IconButton,
  List,
  ListItem,
  ListItemButton,
  ListItemText,
  Popover,
  Stack,
  Typography,
} from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { useInstanceEventHandler } from '../../api/instances.queries.ts';
import {
  type Notification,
  useDeleteAllNotificationsMutation,
  useDeleteNotificationMutation,
  useMarkAllReadMutation,
  useMarkReadMutation,
  useNotificationsQuery,
} from '../../api/notifications.queries.ts';
import { helpKeys, notificationKeys } from '../../api/query-keys.ts';
import { useRouteScopedMenu } from '../../components/use-route-scoped-menu.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import { formatDateTime } from '../subscription/standing.ts';
import { HELPDESK_TARGET, notificationTarget } from './notification-target.ts';
import { useNotificationStream } from './use-notification-stream.ts';

/** The unread count as the badge shows it: 9+ above 9. */
export const badgeText = (unread: number) => (unread > 9 ? '9+' : String(unread));

function NotificationItem({
  notification,
  onOpen,
  onDelete,
}: {
  notification: Notification;
  onOpen(): void;
  onDelete(): void;
}) {
  return (
    <ListItem
      disablePadding
      secondaryAction={
        <IconButton
          edge="end"
          size="small"
          aria-label={`Delete notification: ${notification.title}`}
          onClick={onDelete}
        >
          <CloseIcon fontSize="small" />
        </IconButton>
      }
      sx={{ bgcolor: notification.read ? undefined : 'action.hover' }}
    >
      <ListItemButton onClick={onOpen} sx={{ alignItems: 'flex-start', pr: 6 }}>
        {!notification.read && (
          <Box
            aria-hidden
            sx={{
              width: 8,
              height: 8,
              borderRadius: '50%',
              bgcolor: 'primary.main',
              mt: 1,
              mr: 1.25,
              flexShrink: 0,
            }}
          />
        )}
        <ListItemText
          primary={notification.title}
          secondary={
            <>
              <Box component="span" sx={{ display: 'block' }}>
                {notification.message}
              </Box>
              <Box component="span" sx={{ display: 'block', mt: 0.5, fontSize: '0.75rem' }}>
                {formatDateTime(new Date(notification.createdAt))}
                {notification.read ? '' : ' · Unread'}
              </Box>
            </>
          }
          slotProps={{
            primary: { variant: 'body2', sx: { fontWeight: notification.read ? 500 : 700 } },
            secondary: { variant: 'body2', color: 'text.secondary' },
          }}
          sx={{ ml: notification.read ? 2.25 : 0, my: 0 }}
        />
      </ListItemButton>
    </ListItem>
  );
}

/**
 * The bell of the top bar: unread count, and a panel to read, mark and
 * delete. The list reloads every 60 s and on each live-stream message; new ones also go to the host's
 * system notifications (a click there opens the screen of their kind); instance status changes on the same stream update the instance queries. Errors
 * of these calls are silently ignored.
 */
export function NotificationBell() {
  const panel = useRouteScopedMenu();
  const navigate = useNavigate();
  const platform = usePlatform();
  const queryClient = useQueryClient();
  const list = useNotificationsQuery();
  const markAll = useMarkAllReadMutation();
  const markOne = useMarkReadMutation();
  const removeOne = useDeleteNotificationMutation();
  const removeAll = useDeleteAllNotificationsMutation();

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
  // The one live stream of the app also keeps the instance screens up to date.
  const onInstance = useInstanceEventHandler();
  useNotificationStream({ onMessage, onInstance });

  const items = list.data?.items ?? [];
  const unread = list.data?.unread ?? 0;
  const label = unread > 0 ? `Notifications, ${unread} unread` : 'Notifications';

  const open = (notification: Notification) => {
    if (!notification.read) markOne.mutate(notification.id);
    if (notification.type === 'helpdesk') {
      panel.closeMenu();
      navigate(HELPDESK_TARGET, { state: { tab: 'my' } });
    }
  };

  return (
    <>
      <IconButton
        aria-label={label}
        aria-haspopup="dialog"
        aria-expanded={panel.open}
        onClick={panel.openMenu}
        color="inherit"
      >
        <Badge badgeContent={badgeText(unread)} invisible={unread === 0} color="error" aria-hidden>
          <NotificationsIcon />
        </Badge>
      </IconButton>
      <Popover
        open={panel.open}
        anchorEl={panel.anchorEl}
        onClose={panel.closeMenu}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{
          paper: {
            role: 'dialog',
            'aria-labelledby': 'notifications-title',
            sx: { mt: 1, width: 380, maxWidth: 'calc(100vw - 16px)' },
          },
        }}
      >
        <Stack direction="row" sx={{ alignItems: 'center', px: 2, py: 1.5, gap: 1 }}>
          <Typography
            id="notifications-title"
            component="h2"
            variant="subtitle1"
            sx={{ fontWeight: 700, mr: 'auto' }}
          >
            Notifications
          </Typography>
          <Button size="small" onClick={() => markAll.mutate()} disabled={unread === 0}>
            Mark all read
          </Button>
          <Button size="small" color="error" onClick={() => removeAll.mutate()} disabled={items.length === 0}>
            Delete all
          </Button>
        </Stack>
        <Divider />
        {items.length === 0 ? (
          <Typography color="text.secondary" sx={{ px: 2, py: 4, textAlign: 'center' }}>
            No notifications
          </Typography>
        ) : (
          <List aria-label="Notifications" disablePadding sx={{ maxHeight: 420, overflowY: 'auto' }}>
            {items.map((notification) => (
              <NotificationItem
                key={notification.id}
                notification={notification}
                onOpen={() => open(notification)}
                onDelete={() => removeOne.mutate(notification.id)}
              />
            ))}
          </List>
        )}
      </Popover>
    </>
  );
}
