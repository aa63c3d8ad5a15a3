import { useMemo } from 'react';
import { useServerRender } from '../platform/server-render.tsx';

/**
 * `Intl.DateTimeFormat` with `options` in the runtime's locale and time zone; while a server render is
 * produced or hydrated, in the locale and time zone it was rendered in.
 */
export function useDateTimeFormat(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const server = useServerRender();
  const locale = server?.locale;
  const timeZone = server?.timeZone;
  return useMemo(
    () => new Intl.DateTimeFormat(locale, timeZone ? { ...options, timeZone } : options),
    [locale, timeZone, options],
  );
}
