import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { affiliateApi, makeUser, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

const applicant = makeUser();
const affiliate = makeUser({ isAffiliate: true, affiliateStatus: 'active' });

describe('affiliate apply', () => {
  it('shows the welcome after joining, though the refreshed profile already says affiliate, then the dashboard', async () => {
    const answers = affiliateApi();
    let joined = false;
    const app = renderApp({
      path: '/affiliate/apply',
      token: 'stored',
      api: {
        ...signedInApi(applicant),
        ...answers,
        // The profile the join refreshes is already an affiliate's.
        'GET /api/auth/profile': () => ({ body: { user: joined ? affiliate : applicant } }),
        'POST /api/affiliates/register': () => {
          joined = true;
          return {
            status: 201,
            body: { ok: true, message: 'Welcome', affiliate: answers['GET /api/affiliates/me'].body },
          };
        },
      },
    });
    await screen.findByRole('heading', { level: 1, name: 'Become an Affiliate' });
    await app.user.click(screen.getByRole('checkbox'));
    await app.user.click(screen.getByRole('button', { name: 'Join the Program' }));
    expect(await screen.findByText('Welcome to the Affiliate Program!')).toBeTruthy();
    expect(app.location()).toBe('/affiliate/apply');
    expect(app.api.calls('GET /api/auth/profile').length).toBeGreaterThan(1);
    expect(await screen.findByTestId('referral-code', {}, { timeout: 4000 })).toBeTruthy();
    expect(app.location()).toBe('/affiliate/dashboard');
  });
});
