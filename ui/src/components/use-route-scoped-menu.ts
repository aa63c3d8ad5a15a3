import { type MouseEvent, useState } from 'react';
import { useLocation } from 'react-router';

/**
 * Anchor state for a menu or popover that closes on every route change:
 * it is only open for the location it was opened at.
 */
export function useRouteScopedMenu() {
  const location = useLocation();
  const [opened, setOpened] = useState<{ anchor: HTMLElement; locationKey: string } | null>(null);
  const open = opened !== null && opened.locationKey === location.key;
  return {
    open,
    anchorEl: open ? opened.anchor : null,
    openMenu: (event: MouseEvent<HTMLElement>) =>
      setOpened({ anchor: event.currentTarget, locationKey: location.key }),
    closeMenu: () => setOpened(null),
  };
}

/** Where the top bar's popovers open: below their button, right edges aligned. */
export const BELOW_BUTTON = {
  anchorOrigin: { vertical: 'bottom', horizontal: 'right' },
  transformOrigin: { vertical: 'top', horizontal: 'right' },
} as const;
