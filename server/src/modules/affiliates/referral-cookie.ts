import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { AppEnv } from '../../lib/app-env.ts';

/** The first-party cookie that keeps the id of a visitor's last counted referral click (30 days). */
export const REFERRAL_COOKIE = 'berth_ref';

/** The referral cookie of a request (registration reads it). */
export const referralCookie = (c: Context<AppEnv>): string | undefined => getCookie(c, REFERRAL_COOKIE);

/** Sets the cookie to a click: the last click wins. */
export function setReferralCookie(c: Context<AppEnv>, clickId: string, days: number): void {
  setCookie(c, REFERRAL_COOKIE, clickId, {
    path: '/',
    maxAge: days * 24 * 60 * 60,
    httpOnly: true,
    sameSite: 'Lax',
    secure: new URL(c.req.url).protocol === 'https:',
  });
}
