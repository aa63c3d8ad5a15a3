import type { User } from '@berth/openapi';
import LogoutIcon from '@mui/icons-material/Logout';
import SettingsIcon from '@mui/icons-material/Settings';
import {
  Alert,
  Box,
  Divider,
  IconButton,
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
import { useRouteScopedMenu } from './use-route-scoped-menu.ts';
import { initialsOf, UserAvatar } from './user-avatar.tsx';

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

/** The avatar button and its account menu. */
export function UserMenu({ user, onLogout }: { user: User; onLogout(): void }) {
  const menu = useRouteScopedMenu();
  const sub = user.subscription;
  const standing = standingOf(sub, new Date());
  // The desktop app's Settings (server URL); the web has no such screen.
  const hasSettings = useScreenExists()(SETTINGS_PATH);

  return (
    <>
      <IconButton
        // The initials are visible text of the button, so they belong in its name (WCAG 2.5.3).
        aria-label={`Account menu, ${initialsOf(user)}`}
        aria-haspopup="menu"
        aria-expanded={menu.open}
        onClick={menu.openMenu}
        sx={{ p: 0.5 }}
      >
        <UserAvatar user={user} decorative />
      </IconButton>
      <Popover
        open={menu.open}
        anchorEl={menu.anchorEl}
        onClose={menu.closeMenu}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
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
          <Row
            label="Instances used"
            value={instancesUsage(standing, user.instancesUsed, sub.maxInstances)}
          />
          {standing === 'inactive' && (
            <Alert severity="error" variant="outlined" sx={{ py: 0 }}>
              {INACTIVE_TEXT}
            </Alert>
          )}
        </Stack>
        <Divider />
        <MenuList aria-label="Account" sx={{ py: 0.5 }}>
          {hasSettings && (
            <MenuItem component={RouterLink} to={SETTINGS_PATH} onClick={menu.closeMenu}>
              <ListItemIcon>
                <SettingsIcon fontSize="small" />
              </ListItemIcon>
              <ListItemText>Settings</ListItemText>
            </MenuItem>
          )}
          <MenuItem
            onClick={() => {
              menu.closeMenu();
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
    </>
  );
}
