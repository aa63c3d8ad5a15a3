import { Menu, MenuItem } from '@mui/material';
import { NavLink } from 'react-router';
import type { AppLink } from './nav-link.ts';

/** The main links as a menu, for small screens (loaded when first opened). */
export function NavMenu({
  anchorEl,
  open,
  onClose,
  links,
  exactLinks,
}: {
  anchorEl: HTMLElement | null;
  open: boolean;
  onClose(): void;
  links: readonly AppLink[];
  exactLinks: boolean;
}) {
  return (
    <Menu anchorEl={anchorEl} open={open} onClose={onClose}>
      {links.map((link) => (
        <MenuItem key={link.to} component={NavLink} to={link.to} end={exactLinks} onClick={onClose}>
          {link.label}
        </MenuItem>
      ))}
    </Menu>
  );
}
