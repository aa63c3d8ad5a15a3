import { expect } from 'vitest';
import { type BodyOf, call, register, type TestApp } from './create-test-app.ts';

/** A browser's user agent: click tracking counts browsers (bots' clicks are not counted). */
export const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/140.0 Safari/537.36';

/**
 * A new user who joins the affiliate programme (PayPal payouts unless `profile` says otherwise); answers
 * their token, user id and referral code.
 */
export async function newAffiliate(
  app: TestApp,
  profile: BodyOf<'POST', '/api/affiliates/register'> = { paymentMethod: 'paypal' },
) {
  const account = await register(app);
  const joined = await call(app, 'POST', '/api/affiliates/register', { token: account.token, body: profile });
  expect(joined.status, JSON.stringify(joined.json)).toBe(201);
  return {
    token: account.token,
    userId: String(account.user.id),
    code: String(joined.json.affiliate.referralCode),
  };
}

/** An affiliate and a customer they referred (the ref parameter at registration); answers both tokens. */
export async function referredCustomer(app: TestApp) {
  const affiliate = await newAffiliate(app);
  const customer = await register(app, { ref: affiliate.code });
  return { affiliate: affiliate.token, customer: customer.token, code: affiliate.code };
}
