import type { User } from '@berth/openapi';
import LogoutIcon from '@mui/icons-material/Logout';
import SettingsIcon from '@mui/icons-material/Settings';
import {
  Box,
  Divider,
  ListItemIcon,
  ListItemText,
  MenuItem,
  MenuList,
  Popover,
  Typography,
} from '@mui/material';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { BELOW_BUTTON } from './use-route-scoped-menu.ts';
import { UserAvatar } from './user-avatar.tsx';

/** What the account menu shows besides who is signed in, given by the app's shell. */
export interface AccountMenuContent {
  /** The facts under the user's name (their plan and instances). */
  details: ReactNode;
  /** Where Settings leads; absent where the host has no Settings screen (the web). */
  settingsTo?: string;
}

/**
 * The account menu: who is signed in, the `details` the shell gives (plan and instances), Settings
 * (desktop) and Logout. Its own module, loaded when the avatar button is first opened.
 */
export function UserMenuPanel({
  user,
  content,
  open,
  anchorEl,
  onClose,
  onLogout,
}: {
  user: User;
  content: AccountMenuContent;
  open: boolean;
  anchorEl: HTMLElement | null;
  onClose(): void;
  onLogout(): void;
}) {
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
      {content.details}
      <Divider />
      <MenuList aria-label="Account" sx={{ py: 0.5 }}>
        {content.settingsTo !== undefined && (
          <MenuItem component={RouterLink} to={content.settingsTo} onClick={onClose}>
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
