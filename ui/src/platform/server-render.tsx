import type { DehydratedState } from '@tanstack/react-query';
import { createContext, type ReactNode, startTransition, useContext, useEffect, useState } from 'react';

/**
 * What the server rendered a signed-in page with (web/src/prerender-entry.tsx), so the browser's first
 * render (the hydration) reproduces the same markup: the clock, and the visitor's own locale and time
 * zone, which their browser reported in a cookie.
 */
export interface ServerRenderInfo {
  /** The clock of the render (ms since the epoch): countdowns start from it. */
  renderedAt: number;
  /** BCP 47 locale of dates and times, as the browser resolved it. */
  locale: string;
  /** IANA time zone, as the browser resolved it. */
  timeZone: string;
}

/** The data a server-rendered page carries for the app's first render. */
export interface ServerRenderState {
  info: ServerRenderInfo;
  /** The queries the page was rendered with (TanStack Query's dehydrated cache). */
  queries: DehydratedState;
}

const ServerRenderContext = createContext<ServerRenderInfo | null>(null);

/**
 * The server render's info while React renders on the server or hydrates its markup, null afterwards
 * (and in an app that was not server-rendered): ServerRenderProvider lets go of it right after the
 * hydration, so the browser's own clock, locale and time zone take over.
 */
export function useServerRender(): ServerRenderInfo | null {
  return useContext(ServerRenderContext);
}

/**
 * Provides `info` to the first render (the server's, or the browser's hydration of its markup), then
 * null: the render that follows the hydration is a transition, which React cuts into short tasks.
 */
export function ServerRenderProvider({
  info,
  children,
}: {
  info: ServerRenderInfo | null;
  children: ReactNode;
}) {
  const [current, setCurrent] = useState(info);
  useEffect(() => {
    if (current !== null) startTransition(() => setCurrent(null));
  }, [current]);
  return <ServerRenderContext.Provider value={current}>{children}</ServerRenderContext.Provider>;
}
