import MenuIcon from '@mui/icons-material/Menu';
import { AppBar, Box, Button, IconButton, Stack, Toolbar } from '@mui/material';
import { lazy, type ReactNode, Suspense } from 'react';
import { NavLink } from 'react-router';
import { BrandLogo } from './brand-logo.tsx';
import type { AppLink } from './nav-link.ts';
import { useOpenedOnce } from './use-opened-once.ts';
import { useRouteScopedMenu } from './use-route-scoped-menu.ts';

const NavMenu = lazy(async () => ({ default: (await import('./nav-menu.tsx')).NavMenu }));

/**
 * The bar both layouts share: logo, the main links (a menu on small screens) and, on the right, what
 * the layout puts there. `exactLinks` marks a link active only on its own path, not below it.
 */
export function NavBar({
  logoTo,
  links,
  exactLinks = false,
  children,
}: {
  logoTo: string;
  links: readonly AppLink[];
  exactLinks?: boolean;
  children?: ReactNode;
}) {
  const mobileNav = useRouteScopedMenu();
  // The menu's code loads when it is first opened.
  const menuUsed = useOpenedOnce(mobileNav.open);
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
                end={exactLinks}
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
          {children}
        </Stack>
      </Toolbar>
      {menuUsed && (
        <Suspense fallback={null}>
          <NavMenu
            anchorEl={mobileNav.anchorEl}
            open={mobileNav.open}
            onClose={mobileNav.closeMenu}
            links={links}
            exactLinks={exactLinks}
          />
        </Suspense>
      )}
    </AppBar>
  );
}
