import { describe, expect, it } from 'vitest';
import { makeUser } from '../../test/fixtures.ts';
import { existingLinks, type NavEntry, NOT_FOUND_LINKS, topBarLinksFor } from './navigation.ts';
import { hasScreen } from './route-table.tsx';

const LINKS: NavEntry[] = [
  { label: 'Dashboard', to: '/dashboard' },
  { label: 'Admin Panel', to: '/admin-panel', requires: 'admin' },
  { label: 'Affiliate', to: '/affiliate', requires: 'affiliate' },
  { label: 'Missing', to: '/missing' },
];
const everythingExists = (path: string) => path !== '/missing';
const labels = (links: NavEntry[]) => links.map((link) => link.label);

describe('navigation', () => {
  it('shows Admin Panel to admins only and affiliate links to affiliates only', () => {
    expect(labels(topBarLinksFor(makeUser(), LINKS, everythingExists))).toEqual(['Dashboard']);
    expect(labels(topBarLinksFor(makeUser({ role: 'admin' }), LINKS, everythingExists))).toEqual([
      'Dashboard',
      'Admin Panel',
    ]);
    expect(labels(topBarLinksFor(makeUser({ isAffiliate: true }), LINKS, everythingExists))).toEqual([
      'Dashboard',
      'Affiliate',
    ]);
  });

  it('links only to screens of the route table', () => {
    expect(labels(topBarLinksFor(makeUser({ role: 'admin', isAffiliate: true })))).toEqual(['Dashboard']);
    expect(existingLinks(NOT_FOUND_LINKS.anonymous).map((link) => link.to)).toEqual(['/login', '/register']);
    expect(hasScreen('/login?next=1')).toBe(true);
    expect(hasScreen('/')).toBe(false); // a redirect, not a screen
    expect(hasScreen('/pricing')).toBe(false);
  });
});
