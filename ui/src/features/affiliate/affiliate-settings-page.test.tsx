import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { affiliateApi, apiError, makeUser, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

const affiliate = makeUser({ isAffiliate: true, affiliateStatus: 'active' });
const toast = (text: string) => screen.findByText(text, { selector: '[role="alert"] *' });

describe('affiliate settings', () => {
  it('blurs the payout details until the eye reveals them; saves the referral code upper-cased', async () => {
    const app = renderApp({
      path: '/affiliate/settings',
      token: 'stored',
      api: {
        ...signedInApi(affiliate),
        ...affiliateApi(),
        'PUT /api/affiliates/referral': {
          body: {
            referralCode: 'ADA-2026',
            referralName: 'Ada',
            referralNumber: null,
            website: null,
            referralLink: 'http://localhost/register?ref=ADA-2026',
            message: 'Referral settings saved',
          },
        },
      },
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Affiliate Settings' })).toBeTruthy();
    const payout = await screen.findByRole('region', { name: 'Payout Method' });
    const email = within(payout).getByLabelText('PayPal Email');
    expect((email as HTMLInputElement).value).toBe('payouts@example.com');
    expect(getComputedStyle(email).filter).toContain('blur');
    await app.user.click(within(payout).getByRole('button', { name: 'Show payout details' }));
    expect(getComputedStyle(within(payout).getByLabelText('PayPal Email')).filter).not.toContain('blur');

    const referral = screen.getByRole('region', { name: 'Referral Settings' });
    const code = within(referral).getByLabelText('Referral code');
    await app.user.clear(code);
    await app.user.type(code, ' ada-2026 ');
    await app.user.type(within(referral).getByLabelText('Public name'), 'Ada');
    await app.user.click(within(referral).getByRole('button', { name: 'Save Referral Settings' }));
    expect(await toast('Referral settings saved')).toBeTruthy();
    // Trimmed and upper-cased; blank fields are not sent.
    expect(app.api.calls('PUT /api/affiliates/referral')[0]?.body).toEqual({
      referralCode: 'ADA-2026',
      referralName: 'Ada',
    });
  });

  it('shows a taken code as its own toast', async () => {
    const app = renderApp({
      path: '/affiliate/settings',
      token: 'stored',
      api: {
        ...signedInApi(affiliate),
        ...affiliateApi(),
        'PUT /api/affiliates/referral': {
          status: 409,
          body: {
            ...apiError('This referral code is already taken', 'conflict'),
            details: { fieldErrors: { referralCode: ['This referral code is already taken'] } },
          },
        },
      },
    });
    const referral = await screen.findByRole('region', { name: 'Referral Settings' });
    await app.user.click(within(referral).getByRole('button', { name: 'Save Referral Settings' }));
    expect(await toast('This referral code is already taken')).toBeTruthy();
  });

  it('sends a user without an affiliate profile to apply', async () => {
    const app = renderApp({ path: '/affiliate/settings', token: 'stored', api: signedInApi() });
    expect(await screen.findByRole('heading', { level: 1, name: 'Become an Affiliate' })).toBeTruthy();
    expect(app.location()).toBe('/affiliate/apply');
  });
});
