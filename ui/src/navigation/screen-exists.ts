import { createContext, useContext } from 'react';

/** Whether a path has a screen in the route table of the current session. */
export type ScreenExists = (path: string) => boolean;

export const ScreenExistsContext = createContext<ScreenExists>(() => false);

/** Lets pages link only to screens that exist for this visitor (set by AppRoutes). */
export function useScreenExists(): ScreenExists {
  return useContext(ScreenExistsContext);
}
