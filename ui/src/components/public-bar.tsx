import { Button } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { NavBar } from './nav-bar.tsx';
import type { AppLink } from './nav-link.ts';
import { ThemeToggle } from './theme-toggle.tsx';

/** The signed-out bar; `links` are the public pages that exist. */
export function PublicBar({ links }: { links: readonly AppLink[] }) {
  return (
    <NavBar logoTo="/" links={links} exactLinks>
      <ThemeToggle />
      <Button component={RouterLink} to="/login" color="inherit">
        Sign In
      </Button>
      <Button component={RouterLink} to="/register" variant="contained">
        Get Started
      </Button>
    </NavBar>
  );
}
