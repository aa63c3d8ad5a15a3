import { describe, expect, it } from 'vitest';
import { makeUser } from '../../test/fixtures.ts';
import {
  hasScreen,
  PROTECTED_PATHS,
  resolveRoute,
  SIGNED_IN_ROUTES,
  SIGNED_OUT_ROUTES,
} from '../app/route-table.tsx';
import {
  existingLinks,
  firstExisting,
  footerGroups,
  logoTarget,
  type NavEntry,
  NOT_FOUND_LINKS,
  notFoundContext,
  topBarLinksFor,
} from './navigation.ts';

const LINKS: NavEntry[] = [
  { label: 'Dashboard', to: '/dashboard' },
  { label: 'Admin Panel', to: '/admin-panel', requires: 'admin' },
  { label: 'Affiliate', to: '/affiliate', requires: 'affiliate' },
  { label: 'Missing', to: '/missing' },
];
const everythingExists = (path: string) => path !== '/missing';
const labels = (links: NavEntry[]) => links.map((link) => link.label);
const signedIn = (path: string) => hasScreen(path, SIGNED_IN_ROUTES);
const signedOut = (path: string) => hasScreen(path, SIGNED_OUT_ROUTES);

describe('navigation', () => {
  it('shows Admin Panel to admins only and affiliate links to affiliates only', () => {
    expect(labels(topBarLinksFor(makeUser(), everythingExists, LINKS))).toEqual(['Dashboard']);
    expect(labels(topBarLinksFor(makeUser({ role: 'admin' }), everythingExists, LINKS))).toEqual([
      'Dashboard',
      'Admin Panel',
    ]);
    expect(labels(topBarLinksFor(makeUser({ isAffiliate: true }), everythingExists, LINKS))).toEqual([
      'Dashboard',
      'Affiliate',
    ]);
  });

  it('links only to screens that exist; Billing leads to /billing', () => {
    const links = topBarLinksFor(makeUser({ role: 'admin', isAffiliate: true }), signedIn);
    expect(links.map((link) => `${link.label} ${link.to}`)).toEqual([
      'Dashboard /dashboard',
      'Instances /instances',
      'Billing /billing',
      'Profile /profile',
      'API Access /api-access',
      'Get Help /get-help',
      'Admin Panel /admin-panel',
      'Affiliate /affiliate',
      'Affiliate Settings /affiliate/settings',
    ]);
    expect(topBarLinksFor(makeUser(), signedIn).map((link) => link.label)).not.toContain('Admin Panel');
    expect(existingLinks(NOT_FOUND_LINKS.anonymous.quickLinks, signedOut).map((link) => link.to)).toEqual([
      '/pricing',
      '/login',
      '/register',
    ]);
  });

  it('shows the footer links of the visitor’s route table', () => {
    const visitor = footerGroups(signedOut).flatMap((group) => group.links.map((link) => link.to));
    expect(visitor).toEqual([
      '/pricing',
      '/help',
      '/terms',
      '/privacy-policy',
      '/cookies',
      '/gdpr',
      '/affiliate/register',
      '/affiliate/login',
      '/affiliate/dashboard',
      '/affiliate/terms',
      '/affiliate/privacy-policy',
    ]);
    const user = footerGroups(signedIn).flatMap((group) => group.links.map((link) => link.to));
    expect(user).not.toContain('/help');
    expect(user).toContain('/terms');
  });

  it('picks the Not Found context from the session and the affiliate area', () => {
    expect(notFoundContext(true, '/nowhere')).toBe('signedIn');
    expect(notFoundContext(true, '/affiliate/nowhere')).toBe('signedInAffiliate');
    expect(notFoundContext(false, '/nowhere')).toBe('anonymous');
    expect(notFoundContext(false, '/affiliate')).toBe('anonymousAffiliate');
    expect(notFoundContext(false, '/affiliates')).toBe('anonymous');
  });

  it('falls back to a home that exists while the affiliate screens are missing', () => {
    const noAffiliateScreens = (path: string) => !path.startsWith('/affiliate') && signedIn(path);
    expect(firstExisting(NOT_FOUND_LINKS.signedInAffiliate.home, noAffiliateScreens).to).toBe('/dashboard');
    expect(firstExisting(NOT_FOUND_LINKS.signedInAffiliate.home, signedIn).to).toBe('/affiliate/dashboard');
    expect(firstExisting(NOT_FOUND_LINKS.anonymousAffiliate.home, signedOut).to).toBe('/affiliate');
    expect(firstExisting(NOT_FOUND_LINKS.signedInAffiliate.home, everythingExists).to).toBe(
      '/affiliate/dashboard',
    );
    expect(logoTarget('/affiliate/terms', noAffiliateScreens)).toBe('/dashboard');
    expect(logoTarget('/affiliate/terms', signedIn)).toBe('/affiliate/dashboard');
    expect(logoTarget('/affiliate/terms', everythingExists)).toBe('/affiliate/dashboard');
    expect(logoTarget('/profile', everythingExists)).toBe('/dashboard');
  });
});

describe('route tables', () => {
  it('resolves screens, redirects and fallbacks', () => {
    expect(resolveRoute('/login?next=1', SIGNED_OUT_ROUTES)?.kind).toBe('screen');
    expect(resolveRoute('/', SIGNED_IN_ROUTES)).toEqual({
      kind: 'redirect',
      to: '/dashboard',
      toOrigin: false,
      keepQuery: false,
    });
    expect(resolveRoute('/login', SIGNED_IN_ROUTES)).toEqual({
      kind: 'redirect',
      to: '/dashboard',
      toOrigin: true,
      keepQuery: false,
    });
    // /billing has a screen, so signed-in /pricing leads there.
    expect(resolveRoute('/pricing', SIGNED_IN_ROUTES)).toEqual({
      kind: 'redirect',
      to: '/billing',
      toOrigin: false,
      keepQuery: false,
    });
    // The affiliate redirects keep `ref`.
    expect(resolveRoute('/affiliate/login?ref=X', SIGNED_IN_ROUTES)).toEqual({
      kind: 'redirect',
      to: '/affiliate/dashboard',
      toOrigin: false,
      keepQuery: true,
    });
    expect(resolveRoute('/nowhere', SIGNED_OUT_ROUTES)).toBeNull();
  });

  it('sends visitors of signed-in screens to sign in', () => {
    expect(PROTECTED_PATHS).toEqual([
      '/dashboard',
      '/instances',
      '/instances/new',
      '/instances/:id',
      '/profile',
      '/billing',
      '/api-access',
      '/payment-success',
      '/payment-error',
      '/payment-cancelled',
      '/get-help',
      '/admin-panel',
      '/affiliate/settings',
      '/affiliate/apply',
    ]);
  });
});
