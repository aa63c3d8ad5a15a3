import CloseIcon from '@mui/icons-material/Close';
import {
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
import { useNavigate } from 'react-router';
import {
  type Notification,
  useDeleteAllNotificationsMutation,
  useDeleteNotificationMutation,
  useMarkAllReadMutation,
  useMarkReadMutation,
} from '../../api/notifications.queries.ts';
import { BELOW_BUTTON } from '../../components/use-route-scoped-menu.ts';
import { formatDateTime } from '../subscription/standing.ts';
import { HELPDESK_TARGET } from './notification-target.ts';

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
 * The bell's panel: read, mark and delete the notifications. Its own module, loaded when the bell is
 * first opened (the signed-in pages' first load carries none of it).
 */
export function NotificationPanel({
  open,
  anchorEl,
  onClose,
  items,
  unread,
}: {
  open: boolean;
  anchorEl: HTMLElement | null;
  onClose(): void;
  items: readonly Notification[];
  unread: number;
}) {
  const navigate = useNavigate();
  const markAll = useMarkAllReadMutation();
  const markOne = useMarkReadMutation();
  const removeOne = useDeleteNotificationMutation();
  const removeAll = useDeleteAllNotificationsMutation();

  const openNotification = (notification: Notification) => {
    if (!notification.read) markOne.mutate(notification.id);
    if (notification.type === 'helpdesk') {
      onClose();
      navigate(HELPDESK_TARGET, { state: { tab: 'my' } });
    }
  };

  return (
    <Popover
      open={open}
      anchorEl={anchorEl}
      onClose={onClose}
      {...BELOW_BUTTON}
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
              onOpen={() => openNotification(notification)}
              onDelete={() => removeOne.mutate(notification.id)}
            />
          ))}
        </List>
      )}
    </Popover>
  );
}
