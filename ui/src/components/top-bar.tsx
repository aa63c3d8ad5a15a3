import type { User } from '@berth/openapi';
import MenuIcon from '@mui/icons-material/Menu';
import { AppBar, Box, Button, Chip, IconButton, Menu, MenuItem, Stack, Toolbar } from '@mui/material';
import { NavLink } from 'react-router';
import { NotificationBell } from '../features/notifications/notification-bell.tsx';
import { planName } from '../features/subscription/standing.ts';
import { BrandLogo } from './brand-logo.tsx';
import type { AppLink } from './nav-link.ts';
import { ThemeToggle } from './theme-toggle.tsx';
import { useRouteScopedMenu } from './use-route-scoped-menu.ts';
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
  const mobileNav = useRouteScopedMenu();
  return (
    <AppBar position="sticky">
      <Toolbar sx={{ gap: 1 }}>
        {links.length > 0 && (
          <IconButton
            aria-label="Open navigation"
            onClick={mobileNav.openMenu}
            edge="start"
            sx={{ display: { md: 'none' } }}
          >
            <MenuIcon />
          </IconButton>
        )}
        <BrandLogo to={logoTo} />
        {links.length > 0 && (
          <Box
            component="nav"
            aria-label="Main"
            sx={{ display: { xs: 'none', md: 'flex' }, gap: 0.5, ml: 4 }}
          >
            {links.map((link) => (
              <Button
                key={link.to}
                component={NavLink}
                to={link.to}
                color="inherit"
                sx={{
                  color: 'text.secondary',
                  px: 1.5,
                  '&.active': { color: 'text.primary', bgcolor: 'action.selected' },
                }}
              >
                {link.label}
              </Button>
            ))}
          </Box>
        )}
        <Stack direction="row" spacing={{ xs: 0.5, sm: 1 }} sx={{ ml: 'auto', alignItems: 'center' }}>
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
        </Stack>
      </Toolbar>
      <Menu anchorEl={mobileNav.anchorEl} open={mobileNav.open} onClose={mobileNav.closeMenu}>
        {links.map((link) => (
          <MenuItem key={link.to} component={NavLink} to={link.to} onClick={mobileNav.closeMenu}>
            {link.label}
          </MenuItem>
        ))}
      </Menu>
    </AppBar>
  );
}
