import { Typography } from '@mui/material';
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { useCountdown } from '../not-found/use-countdown.ts';

/**
 * Counts `seconds` down and then replaces the location with `to`. The visible countdown is a timer
 * with its live region off, so screen readers are not told every second; they read it on demand.
 */
export function RedirectCountdown({ seconds, to, label }: { seconds: number; to: string; label: string }) {
  const navigate = useNavigate();
  const left = useCountdown(seconds);

  useEffect(() => {
    if (left === 0) navigate(to, { replace: true });
  }, [left, to, navigate]);

  return (
    <Typography variant="body2" color="text.secondary" role="timer" aria-live="off" aria-atomic>
      Redirecting to {label} in {left} {left === 1 ? 'second' : 'seconds'}...
    </Typography>
  );
}
