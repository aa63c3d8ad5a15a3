import { useState } from 'react';

/**
 * True from the first time `open` is true. A menu or dialog whose code loads lazily mounts then and
 * stays mounted, so it can play its closing animation and opens at once the next time.
 */
export function useOpenedOnce(open: boolean): boolean {
  const [opened, setOpened] = useState(open);
  if (open && !opened) setOpened(true);
  return opened || open;
}
