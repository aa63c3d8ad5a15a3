import type { User } from '@berth/openapi';
import type { FooterGroup } from '../components/app-footer.tsx';
import type { AppLink } from '../components/nav-link.ts';
import { hasScreen } from './route-table.tsx';

export interface NavEntry extends AppLink {
  /** Shown only to admins, or only to users flagged as affiliates. */
  requires?: 'admin' | 'affiliate';
}

/** Top bar links (spec customer-area §2.2); each appears once its route has a screen. */
export const TOP_BAR_LINKS: readonly NavEntry[] = [
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

/** Public bar links besides Sign In and Get Started (spec customer-area §2.3). */
export const PUBLIC_BAR_LINKS: readonly AppLink[] = [
  { label: 'Home', to: '/' },
  { label: 'Pricing', to: '/pricing' },
  { label: 'Help', to: '/help' },
];

/** Not Found quick links (spec customer-area §2.4). */
export const NOT_FOUND_LINKS: Readonly<Record<'signedIn' | 'anonymous', readonly AppLink[]>> = {
  signedIn: [
    { label: 'Instances', to: '/instances' },
    { label: 'Profile', to: '/profile' },
    { label: 'Billing', to: '/billing' },
  ],
  anonymous: [
    { label: 'Pricing', to: '/pricing' },
    { label: 'Sign In', to: '/login' },
    { label: 'Create Account', to: '/register' },
  ],
};

/** Footer link groups (spec customer-area §2.3). */
export const FOOTER_GROUPS: readonly FooterGroup[] = [
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

/** The links of `links` that have a screen. */
export function existingLinks<T extends AppLink>(links: readonly T[], exists = hasScreen): T[] {
  return links.filter((link) => exists(link.to));
}

/** Top bar links this user may see, among those that have a screen. */
export function topBarLinksFor(
  user: Pick<User, 'role' | 'isAffiliate'>,
  links: readonly NavEntry[] = TOP_BAR_LINKS,
  exists = hasScreen,
): NavEntry[] {
  return existingLinks(links, exists).filter(
    (link) =>
      link.requires === undefined ||
      (link.requires === 'admin' && user.role === 'admin') ||
      (link.requires === 'affiliate' && user.isAffiliate),
  );
}

export const footerGroups = (exists = hasScreen): FooterGroup[] =>
  FOOTER_GROUPS.map((group) => ({ ...group, links: existingLinks(group.links, exists) }));
