import MenuIcon from '@mui/icons-material/Menu';
import { AppBar, Box, Button, IconButton, Menu, MenuItem, Stack, Toolbar } from '@mui/material';
import { NavLink, Link as RouterLink } from 'react-router';
import { BrandLogo } from './brand-logo.tsx';
import type { AppLink } from './nav-link.ts';
import { ThemeToggle } from './theme-toggle.tsx';
import { useRouteScopedMenu } from './use-route-scoped-menu.ts';

/** The signed-out bar (spec customer-area §2.3); `links` are the public pages that exist. */
export function PublicBar({ links }: { links: readonly AppLink[] }) {
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
        <BrandLogo to="/" />
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
                end
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
        <Stack
          direction="row"
          spacing={{ xs: 0.5, sm: 1 }}
          sx={{ ml: 'auto', alignItems: 'center', '& .MuiButton-root': { whiteSpace: 'nowrap' } }}
        >
          <ThemeToggle />
          <Button component={RouterLink} to="/login" color="inherit">
            Sign In
          </Button>
          <Button component={RouterLink} to="/register" variant="contained">
            Get Started
          </Button>
        </Stack>
      </Toolbar>
      <Menu anchorEl={mobileNav.anchorEl} open={mobileNav.open} onClose={mobileNav.closeMenu}>
        {links.map((link) => (
          <MenuItem key={link.to} component={NavLink} to={link.to} end onClick={mobileNav.closeMenu}>
            {link.label}
          </MenuItem>
        ))}
      </Menu>
    </AppBar>
  );
}
