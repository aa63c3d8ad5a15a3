import { createContext, useContext } from 'react';
import type { Platform } from './platform.ts';

export const PlatformContext = createContext<Platform | null>(null);

/** The host of the UI (web or desktop): API origin, system notifications, external links. */
export function usePlatform(): Platform {
  const platform = useContext(PlatformContext);
  if (!platform) throw new Error('usePlatform must be used inside App');
  return platform;
}
