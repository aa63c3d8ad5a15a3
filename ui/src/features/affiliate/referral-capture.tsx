import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { useTrackClick } from '../../api/affiliates.queries.ts';
import { storeReferral } from '../auth/referral-code.ts';

/** Codes already reported in this page load (a re-render or a back/forward does not count twice). */
const reported = new Set<string>();

/**
 * `?ref=CODE` on any page: the code is remembered (trimmed,
 * upper-cased) and the click reported, which sets the 30-day referral cookie. Renders nothing.
 */
export function ReferralCapture() {
  const { search } = useLocation();
  const track = useTrackClick();
  useEffect(() => {
    const code = new URLSearchParams(search).get('ref')?.trim().toUpperCase();
    if (!code || reported.has(code)) return;
    reported.add(code);
    storeReferral(code);
    void track(code);
  }, [search, track]);
  return null;
}
