import type { Schemas } from '@berth/openapi';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { affiliateApi, makeUser, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

const affiliate = makeUser({ isAffiliate: true, affiliateStatus: 'active' });
const toast = (text: string) => screen.findByText(text, { selector: '[role="alert"] *' });

const paid: Schemas['AffiliatePayout'] = {
  id: '5a0c2d4e-0000-4000-8000-000000000021',
  amount: 75,
  currency: 'USD',
  status: 'completed',
  method: 'paypal',
  transactionId: 'PAYPAL-TX-1',
  failureReason: null,
  createdAt: '2026-10-02T10:00:00.000Z',
  requestedAt: '2026-10-02T10:00:00.000Z',
  processedAt: '2026-10-05T10:00:00.000Z',
};

/** The dashboard of an affiliate with $120 available and one payout made, opened on its Payouts tab. */
async function payoutsTab(requested: Partial<Schemas['AffiliatePayoutRequestResult']> = {}) {
  const app = renderApp({
    path: '/affiliate/dashboard',
    token: 'stored',
    api: {
      ...signedInApi(affiliate),
      ...affiliateApi(),
      'GET /api/affiliates/payouts': {
        body: {
          currency: 'USD',
          minimumPayout: 50,
          pendingEarnings: 130,
          availableBalance: 120,
          payouts: [paid],
        } satisfies Schemas['AffiliatePayoutList'],
      },
      'POST /api/affiliates/payouts': {
        status: 201,
        body: {
          payout: { ...paid, id: '5a0c2d4e-0000-4000-8000-000000000022', amount: 60, status: 'pending' },
          pendingEarnings: 70,
          availableBalance: 60,
          message: 'Payout request submitted successfully!',
          ...requested,
        } satisfies Schemas['AffiliatePayoutRequestResult'],
      },
    },
  });
  await app.user.click(await screen.findByRole('tab', { name: 'Payouts' }));
  const form = await screen.findByRole('region', { name: 'Request Payout' });
  return { app, form };
}

describe('affiliate payouts', () => {
  it('refuses an amount under the minimum or over the available balance, saying why, and sends nothing', async () => {
    const { app, form } = await payoutsTab();
    expect(within(form).getByTestId('available-balance').textContent).toContain('$120.00');
    const amount = within(form).getByLabelText('Amount');
    const submit = within(form).getByRole('button', { name: 'Request Payout' });

    await app.user.type(amount, '20');
    await app.user.click(submit);
    expect(await toast('Minimum payout amount is $50')).toBeTruthy();

    await app.user.clear(amount);
    await app.user.type(amount, '500');
    await app.user.click(submit);
    expect(await toast('Payout amount cannot exceed pending payout balance')).toBeTruthy();
    expect(app.api.calls('POST /api/affiliates/payouts')).toEqual([]);
  });

  it('requests a payout within the balance, says so, and clears the amount', async () => {
    const { app, form } = await payoutsTab();
    const amount = within(form).getByLabelText('Amount') as HTMLInputElement;
    await app.user.type(amount, '60');
    await app.user.click(within(form).getByRole('button', { name: 'Request Payout' }));
    expect(await toast('Payout request submitted successfully!')).toBeTruthy();
    expect(app.api.calls('POST /api/affiliates/payouts')[0]?.body).toEqual({ amount: 60 });
    expect(amount.value).toBe('');
  });

  it('lists the payouts made, with their method and transaction, and lets them be exported', async () => {
    await payoutsTab();
    const history = await screen.findByRole('table', { name: 'Payout history' });
    const row = within(history).getAllByRole('row')[1];
    expect(row?.textContent).toContain('$75.00');
    expect(row?.textContent).toContain('completed');
    expect(row?.textContent).toContain('PayPal');
    expect(row?.textContent).toContain('PAYPAL-TX-1');
    expect(screen.getByRole('button', { name: 'Export CSV' }).hasAttribute('disabled')).toBe(false);
  });
});
