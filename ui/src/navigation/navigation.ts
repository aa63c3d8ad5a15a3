import type { User } from '@berth/openapi';
import type { FooterGroup } from '../components/app-footer.tsx';
import type { AppLink } from '../components/nav-link.ts';
import type { ScreenExists } from './screen-exists.ts';

/**
 * Every list of links of the app, as data. A list shows only the links whose screen exists for the
 * visitor (see route-table.tsx), so links of later features appear by themselves once built.
 */
export interface NavEntry extends AppLink {
  /** Shown only to admins, or only to users flagged as affiliates. */
  requires?: 'admin' | 'affiliate';
  /** Where the link leads while `to` has no screen yet. */
  fallbackTo?: string;
}

/** Where the host's own Settings screen lives (desktop: the server URL). */
export const SETTINGS_PATH = '/settings';

/** Top bar links. */
const TOP_BAR_LINKS: readonly NavEntry[] = [
  { label: 'Dashboard', to: '/dashboard' },
  { label: 'Instances', to: '/instances' },
  { label: 'Billing', to: '/billing' },
  { label: 'Profile', to: '/profile' },
  { label: 'API Access', to: '/api-access' },
  { label: 'Get Help', to: '/get-help' },
  { label: 'Admin Panel', to: '/admin-panel', requires: 'admin' },
  { label: 'Affiliate', to: '/affiliate', requires: 'affiliate' },
  { label: 'Affiliate Settings', to: '/affiliate/settings', requires: 'affiliate' },
];

/** A Quick Actions tile of the dashboard. */
export interface QuickAction extends NavEntry {
  description: string;
  icon: 'instances' | 'deploy' | 'billing' | 'api' | 'help' | 'profile';
}

/** Dashboard Quick Actions; like every list, only those whose screen exists. */
export const QUICK_ACTIONS: readonly QuickAction[] = [
  {
    label: 'Instances',
    to: '/instances',
    description: 'See and manage everything you run',
    icon: 'instances',
  },
  {
    label: 'Deploy New Instance',
    to: '/instances/new',
    description: 'A database or an application in seconds',
    icon: 'deploy',
  },
  {
    label: 'Billing',
    to: '/billing',
    description: 'Plans, prices and your subscription',
    icon: 'billing',
  },
  { label: 'API Access', to: '/api-access', description: 'Keys for the Berth API', icon: 'api' },
  { label: 'Get Help', to: '/get-help', description: 'Questions and support tickets', icon: 'help' },
  { label: 'Profile', to: '/profile', description: 'Your details and password', icon: 'profile' },
];

/** Public bar links besides Sign In and Get Started: Billing is Pricing here. */
export const PUBLIC_BAR_LINKS: readonly NavEntry[] = [
  { label: 'Home', to: '/' },
  { label: 'Pricing', to: '/pricing' },
  { label: 'Help', to: '/help' },
];

/** Footer link groups. */
const FOOTER_GROUPS: readonly FooterGroup[] = [
  {
    title: 'Resources',
    links: [
      { label: 'Pricing', to: '/pricing' },
      { label: 'Help', to: '/help' },
      { label: 'Terms of Service', to: '/terms' },
      { label: 'Privacy Policy', to: '/privacy-policy' },
      { label: 'Cookie Policy', to: '/cookies' },
      { label: 'GDPR', to: '/gdpr' },
    ],
  },
  {
    title: 'Affiliate Program',
    links: [
      { label: 'Join the Program', to: '/affiliate/register' },
      { label: 'Affiliate Login', to: '/affiliate/login' },
      { label: 'Affiliate Dashboard', to: '/affiliate/dashboard' },
      { label: 'Affiliate Terms', to: '/affiliate/terms' },
      { label: 'Affiliate Privacy Policy', to: '/affiliate/privacy-policy' },
    ],
  },
];

/** The four contexts of the Not Found screen. */
export type NotFoundContext = 'signedIn' | 'signedInAffiliate' | 'anonymous' | 'anonymousAffiliate';

export interface NotFoundLinks {
  /** Where the countdown and the home button lead: the first of these that exists. */
  home: readonly [AppLink, ...AppLink[]];
  quickLinks: readonly NavEntry[];
}

export const NOT_FOUND_LINKS: Readonly<Record<NotFoundContext, NotFoundLinks>> = {
  signedIn: {
    home: [{ label: 'Go to Dashboard', to: '/dashboard' }],
    quickLinks: [
      { label: 'Instances', to: '/instances' },
      { label: 'Profile', to: '/profile' },
      { label: 'Billing', to: '/billing' },
    ],
  },
  signedInAffiliate: {
    home: [
      { label: 'Go to Affiliate Dashboard', to: '/affiliate/dashboard' },
      { label: 'Go to Dashboard', to: '/dashboard' },
    ],
    quickLinks: [
      { label: 'Affiliate Dashboard', to: '/affiliate/dashboard' },
      { label: 'Affiliate Settings', to: '/affiliate/settings' },
      { label: 'Affiliate Terms', to: '/affiliate/terms' },
    ],
  },
  anonymous: {
    home: [{ label: 'Go Home', to: '/' }],
    quickLinks: [
      { label: 'Pricing', to: '/pricing' },
      { label: 'Sign In', to: '/login' },
      { label: 'Create Account', to: '/register' },
    ],
  },
  anonymousAffiliate: {
    home: [
      { label: 'Go to Affiliate Program', to: '/affiliate' },
      { label: 'Go Home', to: '/' },
    ],
    quickLinks: [
      { label: 'Affiliate Login', to: '/affiliate/login' },
      { label: 'Join the Program', to: '/affiliate/register' },
      { label: 'Affiliate Terms', to: '/affiliate/terms' },
    ],
  },
};

/** Paths from /affiliate down form the affiliate area (own logo target, own Not Found links). */
export const isAffiliateArea = (pathname: string) =>
  pathname === '/affiliate' || pathname.startsWith('/affiliate/');

export function notFoundContext(signedIn: boolean, pathname: string): NotFoundContext {
  const affiliate = isAffiliateArea(pathname);
  if (signedIn) return affiliate ? 'signedInAffiliate' : 'signedIn';
  return affiliate ? 'anonymousAffiliate' : 'anonymous';
}

/** The links of `links` that lead to a screen (through their fallback when needed). */
export function existingLinks<T extends NavEntry>(links: readonly T[], exists: ScreenExists): T[] {
  return links.flatMap((link) => {
    if (exists(link.to)) return [link];
    if (link.fallbackTo !== undefined && exists(link.fallbackTo)) return [{ ...link, to: link.fallbackTo }];
    return [];
  });
}

/** The first candidate that exists; the last one otherwise. */
export function firstExisting<T extends AppLink>(candidates: readonly [T, ...T[]], exists: ScreenExists): T {
  return (
    candidates.find((candidate) => exists(candidate.to)) ?? candidates[candidates.length - 1] ?? candidates[0]
  );
}

/** Top bar links this user may see, among those that have a screen. */
export function topBarLinksFor(
  user: Pick<User, 'role' | 'isAffiliate'>,
  exists: ScreenExists,
  links: readonly NavEntry[] = TOP_BAR_LINKS,
): NavEntry[] {
  return existingLinks(links, exists).filter(
    (link) =>
      link.requires === undefined ||
      (link.requires === 'admin' && user.role === 'admin') ||
      (link.requires === 'affiliate' && user.isAffiliate),
  );
}

/** Where the top bar's logo leads: the affiliate dashboard inside the affiliate area. */
export function logoTarget(pathname: string, exists: ScreenExists): string {
  if (isAffiliateArea(pathname) && exists('/affiliate/dashboard')) return '/affiliate/dashboard';
  return '/dashboard';
}

export const footerGroups = (exists: ScreenExists): FooterGroup[] =>
  FOOTER_GROUPS.map((group) => ({ ...group, links: existingLinks(group.links, exists) }));
