import { useCallback, useState } from 'react';
import type { InstanceLayout } from './instance-card.tsx';

/** localStorage key of the instance list's List/Grid choice. */
export const LAYOUT_STORAGE_KEY = 'instances_view';

function readStoredLayout(): InstanceLayout {
  try {
    return localStorage.getItem(LAYOUT_STORAGE_KEY) === 'list' ? 'list' : 'grid';
  } catch {
    return 'grid';
  }
}

/** The List/Grid choice, Grid by default, remembered in this browser. */
export function useStoredLayout(): [InstanceLayout, (layout: InstanceLayout) => void] {
  const [layout, setLayout] = useState<InstanceLayout>(readStoredLayout);
  const choose = useCallback((next: InstanceLayout) => {
    setLayout(next);
    try {
      localStorage.setItem(LAYOUT_STORAGE_KEY, next);
    } catch {
      // Without storage the choice lasts for this visit only.
    }
  }, []);
  return [layout, choose];
}
