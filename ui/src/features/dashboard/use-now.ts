import { useEffect, useMemo, useState } from 'react';
import { useServerRender } from '../../platform/server-render.tsx';

/**
 * The current time, refreshed every `intervalMs` (live countdowns). While a server-rendered page
 * hydrates, the time it was rendered at, so the countdowns match its markup; the clock takes over in
 * the render right after.
 */
export function useNow(intervalMs: number): Date {
  const [now, setNow] = useState(() => new Date());
  const renderedAt = useServerRender()?.renderedAt;
  const rendered = useMemo(() => (renderedAt === undefined ? undefined : new Date(renderedAt)), [renderedAt]);
  useEffect(() => {
    const id = setInterval(() => setNow(new Date()), intervalMs);
    return () => clearInterval(id);
  }, [intervalMs]);
  return rendered ?? now;
}
