import type { User } from '@berth/openapi';
import LogoutIcon from '@mui/icons-material/Logout';
import SettingsIcon from '@mui/icons-material/Settings';
import {
  Alert,
  Box,
  Divider,
  ListItemIcon,
  ListItemText,
  MenuItem,
  MenuList,
  Popover,
  Stack,
  Typography,
} from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { SETTINGS_PATH } from '../app/route-table.tsx';
import { useScreenExists } from '../app/screen-exists.ts';
import {
  currentPlanName,
  INACTIVE_TEXT,
  instancesUsage,
  standingOf,
} from '../features/subscription/standing.ts';
import { BELOW_BUTTON } from './use-route-scoped-menu.ts';
import { UserAvatar } from './user-avatar.tsx';

function Row({ label, value }: { label: string; value: string }) {
  return (
    <Stack direction="row" sx={{ justifyContent: 'space-between', gap: 2 }}>
      <Typography variant="body2" color="text.secondary">
        {label}
      </Typography>
      <Typography variant="body2" sx={{ fontWeight: 600 }}>
        {value}
      </Typography>
    </Stack>
  );
}

/**
 * The account menu: who is signed in, their plan and instances, Settings (desktop) and Logout. Its own
 * module, loaded when the avatar button is first opened.
 */
export function UserMenuPanel({
  user,
  open,
  anchorEl,
  onClose,
  onLogout,
}: {
  user: User;
  open: boolean;
  anchorEl: HTMLElement | null;
  onClose(): void;
  onLogout(): void;
}) {
  const sub = user.subscription;
  const standing = standingOf(sub, new Date());
  // The desktop app's Settings (server URL); the web has no such screen.
  const hasSettings = useScreenExists()(SETTINGS_PATH);
  return (
    <Popover
      open={open}
      anchorEl={anchorEl}
      onClose={onClose}
      {...BELOW_BUTTON}
      slotProps={{ paper: { sx: { mt: 1, width: 280 } } }}
    >
      <Box sx={{ p: 2, display: 'flex', gap: 1.5, alignItems: 'center' }}>
        <UserAvatar user={user} size={40} />
        <Box sx={{ minWidth: 0 }}>
          <Typography sx={{ fontWeight: 600 }} noWrap>
            Welcome, {user.firstName || user.username}!
          </Typography>
          <Typography variant="body2" color="text.secondary" noWrap>
            {user.email}
          </Typography>
        </Box>
      </Box>
      <Divider />
      <Stack spacing={1} sx={{ px: 2, py: 1.5 }}>
        <Row label="Current plan" value={currentPlanName(sub, standing)} />
        <Row label="Instances used" value={instancesUsage(standing, user.instancesUsed, sub.maxInstances)} />
        {standing === 'inactive' && (
          <Alert severity="error" variant="outlined" sx={{ py: 0 }}>
            {INACTIVE_TEXT}
          </Alert>
        )}
      </Stack>
      <Divider />
      <MenuList aria-label="Account" sx={{ py: 0.5 }}>
        {hasSettings && (
          <MenuItem component={RouterLink} to={SETTINGS_PATH} onClick={onClose}>
            <ListItemIcon>
              <SettingsIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText>Settings</ListItemText>
          </MenuItem>
        )}
        <MenuItem
          onClick={() => {
            onClose();
            onLogout();
          }}
        >
          <ListItemIcon>
            <LogoutIcon fontSize="small" />
          </ListItemIcon>
          <ListItemText>Logout</ListItemText>
        </MenuItem>
      </MenuList>
    </Popover>
  );
}
