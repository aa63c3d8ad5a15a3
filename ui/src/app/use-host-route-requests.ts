import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { usePlatform } from '../platform/platform-context.ts';

/** Shows the routes the host asks for, e.g. the screen of a system notification the user clicked. */
export function useHostRouteRequests(): void {
  const platform = usePlatform();
  const navigate = useNavigate();
  useEffect(() => platform.onOpenRoute((route) => navigate(route)), [platform, navigate]);
}
