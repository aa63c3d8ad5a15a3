import { useEffect } from 'react';
import { useTrackClick } from '../../api/affiliates.queries.ts';
import { storeReferral } from '../auth/referral-code.ts';

/** Codes already reported in this page load (a re-render or a back/forward does not count twice). */
const reported = new Set<string>();

/**
 * Remembers an affiliate's code seen in `?ref=` (already trimmed and upper-cased) and reports the
 * click, which sets the 30-day referral cookie. Renders nothing.
 */
export function ReferralCapture({ code }: { code: string }) {
  const track = useTrackClick();
  useEffect(() => {
    if (reported.has(code)) return;
    reported.add(code);
    storeReferral(code);
    void track(code);
  }, [code, track]);
  return null;
}
