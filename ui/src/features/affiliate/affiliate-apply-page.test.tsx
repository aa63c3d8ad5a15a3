import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { affiliateApi, makeUser, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

const applicant = makeUser();
const affiliate = makeUser({ isAffiliate: true, affiliateStatus: 'active' });

/**
 * /affiliate/apply for a user who is not an affiliate yet. From the moment the join is received the
 * profile says affiliate; the join is answered once `joinAnswered` resolves (at once by default).
 */
async function openApply(joinAnswered: () => Promise<void> = async () => {}) {
  const answers = affiliateApi();
  let joined = false;
  const app = renderApp({
    path: '/affiliate/apply',
    token: 'stored',
    api: {
      ...signedInApi(applicant),
      ...answers,
      'GET /api/auth/profile': () => ({ body: { user: joined ? affiliate : applicant } }),
      'POST /api/affiliates/register': async () => {
        joined = true;
        await joinAnswered();
        return {
          status: 201,
          body: { ok: true, message: 'Welcome', affiliate: answers['GET /api/affiliates/me'].body },
        };
      },
    },
  });
  await screen.findByRole('heading', { level: 1, name: 'Become an Affiliate' });
  const join = async () => {
    await app.user.click(screen.getByRole('checkbox'));
    await app.user.click(screen.getByRole('button', { name: 'Join the Program' }));
  };
  return { app, join, joined: () => joined };
}

describe('affiliate apply', () => {
  it('shows the welcome after joining, though the refreshed profile already says affiliate, then the dashboard', async () => {
    const { app, join } = await openApply();
    await join();
    expect(await screen.findByText('Welcome to the Affiliate Program!')).toBeTruthy();
    expect(app.location()).toBe('/affiliate/apply');
    expect(app.api.calls('GET /api/auth/profile').length).toBeGreaterThan(1);
    expect(await screen.findByTestId('referral-code', {}, { timeout: 4000 })).toBeTruthy();
    expect(app.location()).toBe('/affiliate/dashboard');
  });

  it('keeps to the welcome when the profile reloads for another reason while the join is sent', async () => {
    let answerJoin = () => {};
    const { app, join, joined } = await openApply(
      () =>
        new Promise<void>((resolve) => {
          answerJoin = resolve;
        }),
    );
    await waitFor(() => expect(app.streams.opened).toHaveLength(1));
    await join();
    await waitFor(() => expect(joined()).toBe(true));
    // An instance deleted elsewhere reloads the profile, which already says affiliate.
    const before = app.api.calls('GET /api/auth/profile').length;
    app.streams.latest()?.emit('instance', JSON.stringify({ id: 'gone', status: 'deleted' }));
    await waitFor(() => expect(app.api.calls('GET /api/auth/profile').length).toBeGreaterThan(before));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(app.location()).toBe('/affiliate/apply');
    answerJoin();
    expect(await screen.findByText('Welcome to the Affiliate Program!')).toBeTruthy();
  });
});
