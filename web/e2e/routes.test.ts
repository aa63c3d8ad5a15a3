// Every route of both route tables, visited signed out and signed in, against the screen or the
// redirect the spec names. A screen not built yet is listed in LATER with `built: false`, and is then
// checked against what the app does today: its Not Found screen with the countdown.
//
// Built: the public pages; /dashboard, /profile, /billing (signed-in /pricing redirects there),
// /payment-success, /payment-error, /payment-cancelled, /instances, /instances/new, /instances/{id},
// /get-help, /api-access, /api-reference (signed out too), and /admin-panel (admins only: a customer
// goes to /dashboard). The affiliate area is built: signed out, /affiliate, /affiliate/login and
// /affiliate/dashboard show the affiliate login; signed in without an affiliate profile, every
// affiliate screen but apply sends the customer to /affiliate/apply.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  browserSuite,
  type CreatedAccount,
  createAccount,
  forgetSession,
  openSignedIn,
  pathOf,
  shot,
  signIn,
} from './helpers.ts';
import type { RunningServer } from './server.ts';

let server: RunningServer;
let page: Page;
let customer: CreatedAccount;
let admin: CreatedAccount;

browserSuite('routes', (suite) => {
  ({ server, page } = suite);
});

beforeAll(async () => {
  // The first account of a server is its admin; the routes are checked as a plain customer.
  admin = await createAccount(server.baseUrl, {
    firstName: 'Ada',
    lastName: 'Admin',
    username: 'first_admin',
    email: 'admin@example.com',
    password: 'Admin#Pass1234',
  });
  customer = await createAccount(server.baseUrl, {
    firstName: 'Linus',
    lastName: 'Torvalds',
    username: 'linus_t',
    email: 'linus@example.com',
    password: 'Kernel#1991x',
  });
});

type Area = 'main' | 'affiliate';
/** A signed-in screen of a later feature: its h1 once built. */
type LaterScreen = { path: string; area: Area } & ({ built: true; h1: string } | { built: false });

/** Keeps the keys, forgets which screens are built (so `h1` is read only after checking `built`). */
const laterScreens = <K extends string>(screens: Record<K, LaterScreen>): Record<K, LaterScreen> => screens;

/**
 * The signed-in screens of the spec besides the dashboard and the profile, and whether the app has
 * them yet. When one lands, set `built: true` with its h1: its rows and the Not Found links follow.
 */
const LATER = laterScreens({
  instances: { path: '/instances', area: 'main', built: true, h1: 'Instances' },
  newInstance: { path: '/instances/new', area: 'main', built: true, h1: 'Deploy New Instance' },
  // An id that does not exist: the detail screen says so.
  instance: {
    path: '/instances/3f2a9c1e-0000-4000-8000-000000000001',
    area: 'main',
    built: true,
    h1: 'Instance not found',
  },
  billing: { path: '/billing', area: 'main', built: true, h1: 'Subscription and Billing' },
  paymentSuccess: { path: '/payment-success?tx=tx_123', area: 'main', built: true, h1: 'Payment Successful' },
  paymentError: {
    path: '/payment-error?reason=cancelled',
    area: 'main',
    built: true,
    h1: 'Payment Cancelled',
  },
  paymentCancelled: { path: '/payment-cancelled', area: 'main', built: true, h1: 'Payment Cancelled' },
  apiAccess: { path: '/api-access', area: 'main', built: true, h1: 'API Access' },
  apiReference: { path: '/api-reference', area: 'main', built: true, h1: 'API Reference' },
  getHelp: { path: '/get-help', area: 'main', built: true, h1: 'Get Help' },
});
const LATER_SCREENS: readonly LaterScreen[] = Object.values(LATER);
/** Signed-out screens of their own at these paths (affiliate login, API reference), not protected. */
const ALSO_SIGNED_OUT = new Set(['/api-reference']);

/** The four contexts of the Not Found screen, with the links of the screens that exist. */
const NOT_FOUND = {
  anonymous: { home: 'Go Home', homeTo: '/', quickLinks: ['Pricing', 'Sign In', 'Create Account'] },
  anonymousAffiliate: {
    home: 'Go to Affiliate Program',
    homeTo: '/affiliate',
    quickLinks: ['Affiliate Login', 'Join the Program', 'Affiliate Terms'],
  },
  signedIn: {
    home: 'Go to Dashboard',
    homeTo: '/dashboard',
    quickLinks: [...(LATER.instances.built ? ['Instances'] : []), 'Profile', 'Billing'],
  },
  signedInAffiliate: {
    home: 'Go to Affiliate Dashboard',
    homeTo: '/affiliate/dashboard',
    quickLinks: ['Affiliate Dashboard', 'Affiliate Settings', 'Affiliate Terms'],
  },
};
type NotFoundContext = keyof typeof NOT_FOUND;

type Outcome =
  /** A screen at this very path, known by its h1 (and a text on it). */
  | { screen: string; text?: string }
  /** The app moves to `redirect`, which shows `screen` (or Not Found). */
  | { redirect: string; screen: string }
  | { redirect: string; notFound: NotFoundContext }
  /** Not Found at this path. */
  | { notFound: NotFoundContext };

interface Row {
  path: string;
  expect: Outcome;
  /** Set when the app differs from the spec today: what the spec names. */
  spec?: string;
}

const LANDING = 'Deploy applications and databases in a few clicks';
const SIGN_IN = 'Welcome back';
const AFFILIATE_LOGIN = 'Affiliate Login';
const NOT_BUILT = 'not built yet';

const LEGAL: readonly Row[] = [
  { path: '/terms', expect: { screen: 'Terms of Service' } },
  { path: '/privacy-policy', expect: { screen: 'Privacy Policy' } },
  { path: '/cookies', expect: { screen: 'Cookie Policy' } },
  { path: '/gdpr', expect: { screen: 'GDPR' } },
  { path: '/affiliate/terms', expect: { screen: 'Affiliate Program Terms' } },
  { path: '/affiliate/privacy-policy', expect: { screen: 'Affiliate Privacy Policy' } },
  { path: '/affiliate/privacy', expect: { screen: 'Affiliate Privacy Policy' } },
];

const anonymousIn = (area: Area): NotFoundContext => (area === 'main' ? 'anonymous' : 'anonymousAffiliate');
const signedInIn = (area: Area): NotFoundContext => (area === 'main' ? 'signedIn' : 'signedInAffiliate');

/** A later screen visited signed in: the screen once built, else Not Found. */
const signedInRow = (screen: LaterScreen): Row =>
  screen.built
    ? { path: screen.path, expect: { screen: screen.h1 } }
    : { path: screen.path, expect: { notFound: signedInIn(screen.area) }, spec: NOT_BUILT };

/** A protected later screen visited signed out: /login once built, else Not Found. */
const signedOutRow = (screen: LaterScreen): Row =>
  screen.built
    ? { path: screen.path, expect: { redirect: '/login', screen: SIGN_IN } }
    : {
        path: screen.path,
        expect: { notFound: anonymousIn(screen.area) },
        spec: `redirect to /login (${NOT_BUILT})`,
      };

const SIGNED_OUT: readonly Row[] = [
  { path: '/', expect: { screen: LANDING, text: 'Start Free Trial' } },
  { path: '/home', expect: { screen: LANDING } },
  { path: '/pricing', expect: { screen: 'Pricing', text: 'Starter' } },
  { path: '/help', expect: { screen: 'Help Center', text: 'Getting Started' } },
  { path: '/login', expect: { screen: SIGN_IN, text: 'Forgot password?' } },
  { path: '/register', expect: { screen: 'Create your account' } },
  {
    path: '/reset-password',
    expect: {
      screen: 'Reset link not valid',
      text: 'Invalid reset link. Please request a new password reset.',
    },
  },
  ...LEGAL,
  { path: '/api/docs', expect: { screen: 'Berth API', text: 'Rate Limits' } },
  { path: '/affiliate', expect: { screen: AFFILIATE_LOGIN } },
  { path: '/affiliate/login', expect: { screen: AFFILIATE_LOGIN } },
  { path: '/affiliate/dashboard', expect: { screen: AFFILIATE_LOGIN } },
  { path: '/affiliate/register', expect: { screen: 'Join the Affiliate Program' } },
  { path: '/affiliate/settings', expect: { redirect: '/login', screen: SIGN_IN } },
  { path: '/affiliate/apply', expect: { redirect: '/login', screen: SIGN_IN } },
  { path: '/affiliate/no-such-page', expect: { notFound: 'anonymousAffiliate' } },
  { path: '/api-reference', expect: { screen: 'API Reference' } },
  // Protected pages send anonymous visitors to /login.
  { path: '/dashboard', expect: { redirect: '/login', screen: SIGN_IN } },
  { path: '/profile', expect: { redirect: '/login', screen: SIGN_IN } },
  { path: '/admin-panel', expect: { redirect: '/login', screen: SIGN_IN } },
  ...LATER_SCREENS.filter((screen) => !ALSO_SIGNED_OUT.has(screen.path)).map(signedOutRow),
  { path: '/no/such/page', expect: { notFound: 'anonymous' } },
];

/** A customer without an affiliate profile: the affiliate screens send them to apply (404 → apply). */
const toApply: Outcome = { redirect: '/affiliate/apply', screen: 'Become an Affiliate' };

const SIGNED_IN: readonly Row[] = [
  { path: '/dashboard', expect: { screen: 'Dashboard', text: 'Welcome back, Linus!' } },
  { path: '/profile', expect: { screen: 'Profile Settings', text: 'Account Information' } },
  // Admins only: a customer goes to /dashboard.
  { path: '/admin-panel', expect: { redirect: '/dashboard', screen: 'Dashboard' } },
  { path: '/', expect: { redirect: '/dashboard', screen: 'Dashboard' } },
  { path: '/home', expect: { redirect: '/dashboard', screen: 'Dashboard' } },
  { path: '/login', expect: { redirect: '/dashboard', screen: 'Dashboard' } },
  { path: '/register', expect: { redirect: '/dashboard', screen: 'Dashboard' } },
  LATER.billing.built
    ? { path: '/pricing', expect: { redirect: '/billing', screen: LATER.billing.h1 } }
    : {
        path: '/pricing',
        expect: { screen: 'Billing', text: 'Online checkout is being set up.' },
        spec: `redirect to /billing (${NOT_BUILT}; the plans show under the title Billing meanwhile)`,
      },
  // /affiliate/login and /affiliate/register go to /affiliate/dashboard, which sends a customer to apply.
  { path: '/affiliate/login', expect: toApply },
  { path: '/affiliate/register', expect: toApply },
  { path: '/affiliate', expect: toApply },
  { path: '/affiliate/dashboard', expect: toApply },
  { path: '/affiliate/settings', expect: toApply },
  { path: '/affiliate/apply', expect: { screen: 'Become an Affiliate', text: 'Join the Program' } },
  { path: '/affiliate/no-such-page', expect: { notFound: 'signedInAffiliate' } },
  // The legal pages and /api/docs are open to users too (the footer links to them).
  ...LEGAL,
  { path: '/api/docs', expect: { screen: 'Berth API', text: 'Back to Home' } },
  ...LATER_SCREENS.map(signedInRow),
  // Signed-out screens that are not in the signed-in table: any other path is Not Found.
  { path: '/help', expect: { notFound: 'signedIn' } },
  { path: '/reset-password?token=abc', expect: { notFound: 'signedIn' } },
  { path: '/no/such/page', expect: { notFound: 'signedIn' } },
];

const h1 = (name: string) => page.getByRole('heading', { level: 1, name, exact: true });

async function expectNotFound(context: NotFoundContext) {
  const want = NOT_FOUND[context];
  await h1('Page Not Found').waitFor();
  expect(await page.getByRole('timer').textContent()).toMatch(/^Redirecting in (10|9|8) seconds\.\.\.$/);
  await page.getByRole('button', { name: 'Go Back' }).waitFor();
  const home = page.getByRole('link', { name: want.home, exact: true });
  expect(await home.getAttribute('href')).toBe(want.homeTo);
  const quickLinks = page.getByRole('navigation', { name: 'Quick links' }).getByRole('link');
  expect(await quickLinks.allTextContents()).toEqual(want.quickLinks);
}

const describeOutcome = (row: Row) => {
  const { expect: outcome } = row;
  const shown = 'notFound' in outcome ? 'Not Found' : `"${outcome.screen}"`;
  const target = 'redirect' in outcome ? `→ ${outcome.redirect} ${shown}` : shown;
  return row.spec ? `${target} (spec: ${row.spec})` : target;
};

async function visit(row: Row) {
  await page.goto(`${server.baseUrl}${row.path}`);
  const outcome = row.expect;
  const at = 'redirect' in outcome ? outcome.redirect : new URL(row.path, server.baseUrl).pathname;
  if ('redirect' in outcome) await page.waitForURL((url) => url.pathname === outcome.redirect);
  if ('notFound' in outcome) await expectNotFound(outcome.notFound);
  else await h1(outcome.screen).waitFor();
  if ('text' in outcome && outcome.text) await page.getByText(outcome.text).first().waitFor();
  expect(pathOf(page)).toBe(at);
}

describe('every route signed out', () => {
  beforeAll(() => forgetSession(page, server.baseUrl));

  for (const row of SIGNED_OUT) {
    it(`${row.path} ${describeOutcome(row)}`, () => visit(row));
  }

  it('sends an anonymous visitor of /profile to /login and back to /profile after signing in', async () => {
    await page.goto(`${server.baseUrl}/profile`);
    await page.waitForURL('**/login');
    await signIn(page, customer.username, customer.password);
    await page.waitForURL('**/profile');
    await h1('Profile Settings').waitFor();
  });
});

describe('every route signed in', () => {
  beforeAll(() => openSignedIn(page, server.baseUrl, customer.token));

  for (const row of SIGNED_IN) {
    it(`${row.path} ${describeOutcome(row)}`, () => visit(row));
  }
});

describe('the admin panel', () => {
  beforeAll(() => openSignedIn(page, server.baseUrl, admin.token));

  it('/admin-panel "Admin Panel" for the admin', () =>
    visit({ path: '/admin-panel', expect: { screen: 'Admin Panel', text: 'Help Desk' } }));
});

describe('the Not Found countdown', () => {
  // Fake timers from here on: the ten seconds pass at once. They stay installed, so this goes last.
  beforeAll(() => page.clock.install());

  it('leads a user to /dashboard after 10 seconds', async () => {
    await page.goto(`${server.baseUrl}/no/such/page`);
    await h1('Page Not Found').waitFor();
    await shot(page, 'not-found-signed-in');
    await page.clock.runFor(9_000);
    await page.getByText('Redirecting in 1 second...').waitFor();
    expect(pathOf(page)).toBe('/no/such/page');
    await page.clock.runFor(1_000);
    await page.waitForURL((url) => url.pathname === '/dashboard');
    await h1('Dashboard').waitFor();
  });

  it('leads a visitor to / after 10 seconds', async () => {
    await forgetSession(page, server.baseUrl);
    await page.goto(`${server.baseUrl}/no/such/page`);
    await h1('Page Not Found').waitFor();
    await page.clock.runFor(10_000);
    await page.waitForURL((url) => url.pathname === '/');
    await h1(LANDING).waitFor();
  });
});
