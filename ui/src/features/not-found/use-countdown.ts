import { useEffect, useState } from 'react';

/** Seconds left, counting down once a second from `seconds` to 0. */
export function useCountdown(seconds: number): number {
  const [left, setLeft] = useState(seconds);
  useEffect(() => {
    const id = setInterval(() => setLeft((current) => Math.max(0, current - 1)), 1_000);
    return () => clearInterval(id);
  }, []);
  return left;
}
