// Accessibility with axe-core: no violation of impact serious or critical on the public pages and the
// account pages (issue 3 "Evidence to show"), in the dark and in the light theme.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.ts';
import {
  api,
  browserSuite,
  type CreatedAccount,
  createAccount,
  forgetSession,
  openSignedIn,
  settled,
  startApp,
} from './helpers.ts';
import type { RunningServer } from './server.ts';

let server: RunningServer;
let page: Page;
let user: CreatedAccount;
/** Signed in but not an affiliate: sees the apply form. */
let applicant: CreatedAccount;

browserSuite('a11y', (suite) => {
  ({ server, page } = suite);
});

beforeAll(async () => {
  user = await createAccount(server.baseUrl, {
    firstName: 'Tim',
    lastName: 'Berners-Lee',
    username: 'timbl',
    email: 'tim@example.com',
    password: 'World#Wide1989',
  });
  // A ticket with an image and an answer, for the help desk screens.
  const form = new FormData();
  form.set('file', new Blob([PNG]), 'screen.png');
  const uploaded = await fetch(`${server.baseUrl}/api/help/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.token}` },
    body: form,
  });
  const { file } = (await uploaded.json()) as { file: { url: string; name: string } };
  const { item } = await api<{ item: { id: string } }>(server.baseUrl, 'POST', '/api/help/submit', {
    token: user.token,
    body: {
      name: 'Tim Berners-Lee',
      email: 'tim@example.com',
      category: 'technical',
      subject: 'Site shows 502',
      message: 'Since this morning.',
      attachments: [file],
    },
  });
  await api(server.baseUrl, 'POST', `/api/help/${item.id}/answer`, {
    token: user.token,
    body: { text: 'Fixed: see [the status page](https://example.com/status).', notify: false },
  });
  await api(server.baseUrl, 'POST', '/api/affiliates/register', {
    token: user.token,
    body: { paymentMethod: 'paypal' },
  });
  applicant = await createAccount(server.baseUrl, {
    firstName: 'Vint',
    lastName: 'Cerf',
    username: 'vint',
    email: 'vint@example.com',
    password: 'Tcp/Ip#1974x',
  });
});

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

const THEMES = ['dark', 'light'] as const;
type Theme = (typeof THEMES)[number];

interface Screen {
  name: string;
  path: string;
  /** What shows once the page is ready to be judged. */
  ready: (page: Page) => Promise<void>;
}

const h1 = (name: string | RegExp) => (p: Page) => p.getByRole('heading', { level: 1, name }).waitFor();

const PUBLIC: readonly Screen[] = [
  { name: 'landing', path: '/', ready: h1(/^Deploy applications/) },
  {
    name: 'pricing',
    path: '/pricing',
    ready: (p) => p.getByRole('group', { name: 'Billing cycle' }).waitFor(),
  },
  { name: 'help', path: '/help', ready: h1('Help Center') },
  { name: 'terms', path: '/terms', ready: h1('Terms of Service') },
  { name: 'privacy policy', path: '/privacy-policy', ready: h1('Privacy Policy') },
  { name: 'cookie policy', path: '/cookies', ready: h1('Cookie Policy') },
  { name: 'GDPR', path: '/gdpr', ready: h1('GDPR') },
  { name: 'affiliate terms', path: '/affiliate/terms', ready: h1('Affiliate Program Terms') },
  { name: 'affiliate privacy', path: '/affiliate/privacy-policy', ready: h1('Affiliate Privacy Policy') },
  { name: 'API docs', path: '/api/docs', ready: h1('Berth API') },
  // Scalar's rendering of the public OpenAPI document, every operation open.
  {
    name: 'API reference',
    path: '/api-reference',
    ready: (p) => p.getByText('Delete a backup', { exact: true }).first().waitFor({ timeout: 30_000 }),
  },
  { name: 'sign-in', path: '/login', ready: h1('Welcome back') },
  {
    name: 'sign-in, forgot-password dialog open',
    path: '/login',
    ready: async (p) => {
      await p.getByRole('button', { name: 'Forgot password?' }).click();
      await p.getByRole('dialog').getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    },
  },
  { name: 'registration', path: '/register', ready: h1('Create your account') },
  { name: 'reset password (no token)', path: '/reset-password', ready: h1('Reset link not valid') },
  { name: 'affiliate login', path: '/affiliate/login', ready: h1('Affiliate Login') },
  { name: 'affiliate register', path: '/affiliate/register', ready: h1('Join the Affiliate Program') },
];

const ACCOUNT: readonly Screen[] = [
  {
    name: 'dashboard',
    path: '/dashboard',
    ready: (p) =>
      p
        .getByText(/Trial active — ends/)
        .first()
        .waitFor(),
  },
  { name: 'profile', path: '/profile', ready: h1('Profile Settings') },
  // Not Pro: the upgrade prompt (the Pro page with a key is checked in api-access.test.ts).
  { name: 'API access', path: '/api-access', ready: h1('API Access') },
  { name: 'API docs, signed in', path: '/api/docs', ready: h1('Berth API') },
  { name: 'billing', path: '/billing', ready: h1('Subscription and Billing') },
  // Without a query: `navigate` waits for the pathname. Each redirects after 5 or 10 s, longer than a check.
  { name: 'payment success', path: '/payment-success', ready: h1('Payment Successful') },
  { name: 'payment failed', path: '/payment-error', ready: h1('Payment Failed') },
  {
    name: 'billing, payment method dialog open',
    path: '/billing',
    ready: async (p) => {
      await p.getByRole('button', { name: 'Choose Pro' }).click();
      await p.getByRole('dialog').getByRole('heading', { name: 'Choose a payment method' }).waitFor();
    },
  },
  // The account is the server's first, so an admin.
  {
    name: 'admin panel, payments',
    path: '/admin-panel',
    ready: async (p) => {
      await p.getByRole('tab', { name: 'Payments' }).click();
      await p.getByRole('form', { name: 'Payment settings' }).waitFor();
    },
  },
  {
    name: 'admin panel, help desk with a ticket open',
    path: '/admin-panel',
    ready: async (p) => {
      await p.getByRole('tab', { name: 'Help Desk' }).click();
      await p.getByRole('list', { name: 'Tickets' }).getByText('Site shows 502').click();
      await p.getByText('User Message').waitFor();
      await p.getByRole('img', { name: 'screen.png' }).waitFor();
    },
  },
  {
    name: 'admin panel, notifications',
    path: '/admin-panel',
    ready: async (p) => {
      await p.getByRole('tab', { name: 'Notifications' }).click();
      await p.getByRole('radio', { name: 'Single user' }).click();
      await p.getByRole('combobox', { name: 'User' }).waitFor();
    },
  },
  {
    name: 'get help, send form',
    path: '/get-help',
    ready: (p) => p.getByRole('form', { name: 'Send a support message' }).waitFor(),
  },
  {
    name: 'get help, answered ticket',
    path: '/get-help',
    ready: async (p) => {
      await p.getByRole('tab', { name: 'Answered' }).click();
      await p.getByRole('region', { name: 'Support Response' }).waitFor();
      await p.getByRole('img', { name: 'screen.png' }).waitFor();
    },
  },
  {
    name: 'admin panel, users',
    path: '/admin-panel',
    ready: async (p) => {
      await p.getByRole('tab', { name: 'Users' }).click();
      await p.getByRole('table').waitFor();
    },
  },
  // The account joins the affiliate programme in beforeAll; a second account applies (below).
  {
    name: 'affiliate dashboard, overview with the chart',
    path: '/affiliate/dashboard',
    ready: (p) => p.getByTestId('earnings-chart').locator('svg').first().waitFor(),
  },
  {
    name: 'affiliate dashboard, payouts',
    path: '/affiliate/dashboard',
    ready: async (p) => {
      await p.getByRole('tab', { name: 'Payouts' }).click();
      await p.getByText('No Payouts Yet').waitFor();
    },
  },
  {
    name: 'affiliate settings, details revealed',
    path: '/affiliate/settings',
    ready: async (p) => {
      await h1('Affiliate Settings')(p);
      await p.getByRole('button', { name: 'Show payout details' }).click();
    },
  },
  {
    name: 'admin panel, affiliate payouts',
    path: '/admin-panel',
    ready: async (p) => {
      await p.getByRole('tab', { name: 'Affiliates' }).click();
      await p.getByText('No payout requests here.').waitFor();
    },
  },
  {
    name: 'dashboard, notification panel open',
    path: '/dashboard',
    ready: async (p) => {
      await p.getByRole('button', { name: 'Notifications, 1 unread' }).click();
      await p.getByRole('dialog', { name: 'Notifications' }).getByText('Welcome to Berth!').waitFor();
    },
  },
  {
    name: 'dashboard, account menu open',
    path: '/dashboard',
    ready: async (p) => {
      await p.getByRole('button', { name: /^Account menu/ }).click();
      await p.getByRole('menuitem', { name: 'Logout' }).waitFor();
    },
  },
];

/** The theme the page shows: MUI's CssBaseline sets the root's color-scheme to the palette mode. */
const shownTheme = () => page.evaluate(() => getComputedStyle(document.documentElement).colorScheme);

/**
 * Shows `path` the way the app's own links do (client-side, through the router's history), so the
 * page and axe stay loaded between screens; each theme starts from a full page load (useTheme).
 */
async function navigate(path: string) {
  // Whatever is open (dialog, popover, menu) is closed first, as a person would.
  if (await page.evaluate(() => document.querySelector('.MuiModal-root') !== null)) {
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.querySelector('.MuiModal-root') === null);
  }
  await page.evaluate((to) => {
    window.history.pushState(window.history.state, '', to);
    window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state }));
  }, path);
  await page.waitForURL((url) => url.pathname === path);
}

async function check(screen: Screen, theme: Theme) {
  await navigate(screen.path);
  await screen.ready(page);
  await settled(page);
  expect(await shownTheme()).toBe(theme);
  expect(await seriousViolations(page), `axe on ${screen.path} (${screen.name}, ${theme})`).toEqual([]);
}

/** Switches to `theme` with the page's own toggle, which stores the choice in localStorage 'theme'. */
async function useTheme(theme: Theme) {
  await page.goto(`${server.baseUrl}/terms`);
  await h1('Terms of Service')(page);
  // navigate() goes through the app's router.
  await startApp(page);
  const other = theme === 'dark' ? 'Switch to dark mode' : 'Switch to light mode';
  if ((await shownTheme()) !== theme) await page.getByRole('button', { name: other }).first().click();
  await page
    .getByRole('button', { name: theme === 'dark' ? 'Switch to light mode' : 'Switch to dark mode' })
    .first()
    .waitFor();
  expect(await shownTheme()).toBe(theme);
  expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe(theme);
}

describe('axe-core: no serious or critical violation', () => {
  it('the check itself works: it flags an image without a text alternative', async () => {
    await page.goto(`${server.baseUrl}/terms`);
    await h1('Terms of Service')(page);
    // The page is prerendered: wait until the app has started and React has hydrated <main>, which
    // removes nodes it did not render.
    await startApp(page);
    await page.evaluate(() => {
      const img = document.createElement('img');
      img.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
      document.querySelector('main')?.append(img);
    });
    expect((await seriousViolations(page)).join('\n')).toMatch(/^critical image-alt:/);
  });

  describe('public pages, signed out', () => {
    beforeAll(() => forgetSession(page, server.baseUrl));
    for (const theme of THEMES) {
      describe(`${theme} theme`, () => {
        beforeAll(() => useTheme(theme));
        for (const screen of PUBLIC) it(`${screen.name} (${screen.path})`, () => check(screen, theme));
      });
    }
  });

  describe('affiliate apply, signed in without an affiliate profile', () => {
    beforeAll(() => openSignedIn(page, server.baseUrl, applicant.token, '/terms'));
    for (const theme of THEMES) {
      describe(`${theme} theme`, () => {
        beforeAll(() => useTheme(theme));
        it('affiliate apply (/affiliate/apply)', () =>
          check(
            { name: 'affiliate apply', path: '/affiliate/apply', ready: h1('Become an Affiliate') },
            theme,
          ));
      });
    }
  });

  describe('account pages, signed in', () => {
    beforeAll(() => openSignedIn(page, server.baseUrl, user.token));
    for (const theme of THEMES) {
      describe(`${theme} theme`, () => {
        beforeAll(() => useTheme(theme));
        for (const screen of ACCOUNT) it(`${screen.name} (${screen.path})`, () => check(screen, theme));
      });
    }
  });
});
