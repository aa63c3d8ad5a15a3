import type { ComponentType } from 'react';
import { matchPath } from 'react-router';
import { lazyWithQueries } from '../api/query-layer.ts';
import { type LazyComponent, lazyComponent } from '../components/lazy-component.tsx';
import { SETTINGS_PATH } from '../navigation/navigation.ts';
import type { Platform } from '../platform/platform.ts';

/**
 * A screen loaded on first use: each page is its own chunk, so a visitor of / or /pricing downloads no
 * dashboard, billing or admin code. It loads with the query layer's code (it fetches data). `pick`
 * names the export of the page module.
 */
function page<M>(load: () => Promise<M>, pick: (module: M) => ComponentType): LazyComponent<object> {
  return lazyWithQueries(async () => pick(await load()));
}

/** A screen that fetches nothing (it renders from its own texts and the page's data): no query layer. */
function staticPage<M>(load: () => Promise<M>, pick: (module: M) => ComponentType): LazyComponent<object> {
  return lazyComponent(async () => pick(await load()));
}

/**
 * Fetches the code of the screen `path` shows in `table` (nothing for a redirect or an unknown path),
 * e.g. the signed-in screen of the address while a stored session's profile loads.
 */
export async function preloadScreen(path: string, table: RouteTable): Promise<void> {
  const route = resolveRoute(path, table);
  if (route?.kind === 'screen' && 'preload' in route.Component)
    await (route.Component as LazyComponent<object>).preload();
}

const LandingPage = staticPage(
  () => import('../features/landing/landing-page.tsx'),
  (m) => m.LandingPage,
);
const PricingPage = page(
  () => import('../features/pricing/pricing-page.tsx'),
  (m) => m.PricingPage,
);
const HelpPage = page(
  () => import('../features/help/help-page.tsx'),
  (m) => m.HelpPage,
);
const LoginPage = page(
  () => import('../features/auth/login-page.tsx'),
  (m) => m.LoginPage,
);
const RegisterPage = page(
  () => import('../features/auth/register-page.tsx'),
  (m) => m.RegisterPage,
);
const ResetPasswordPage = page(
  () => import('../features/auth/reset-password-page.tsx'),
  (m) => m.ResetPasswordPage,
);
const legal = () => import('../features/legal/legal-pages.tsx');
const TermsPage = staticPage(legal, (m) => m.TermsPage);
const PrivacyPolicyPage = staticPage(legal, (m) => m.PrivacyPolicyPage);
const CookiePolicyPage = staticPage(legal, (m) => m.CookiePolicyPage);
const GdprPage = staticPage(legal, (m) => m.GdprPage);
const AffiliateTermsPage = staticPage(legal, (m) => m.AffiliateTermsPage);
const AffiliatePrivacyPage = staticPage(legal, (m) => m.AffiliatePrivacyPage);
const ApiDocsPage = page(
  () => import('../features/api-docs/api-docs-page.tsx'),
  (m) => m.ApiDocsPage,
);
const ApiReferencePage = page(
  () => import('../features/api-reference/api-reference-page.tsx'),
  (m) => m.ApiReferencePage,
);
const ApiAccessPage = page(
  () => import('../features/api-access/api-access-page.tsx'),
  (m) => m.ApiAccessPage,
);
const DashboardPage = page(
  () => import('../features/dashboard/dashboard-page.tsx'),
  (m) => m.DashboardPage,
);
const InstancesPage = page(
  () => import('../features/instances/instances-page.tsx'),
  (m) => m.InstancesPage,
);
const NewInstancePage = page(
  () => import('../features/instances/new-instance-page.tsx'),
  (m) => m.NewInstancePage,
);
const InstanceDetailPage = page(
  () => import('../features/instances/instance-detail-page.tsx'),
  (m) => m.InstanceDetailPage,
);
const ProfilePage = page(
  () => import('../features/profile/profile-page.tsx'),
  (m) => m.ProfilePage,
);
const BillingPage = page(
  () => import('../features/billing/billing-page.tsx'),
  (m) => m.BillingPage,
);
const PaymentSuccessPage = page(
  () => import('../features/payment-result/payment-success-page.tsx'),
  (m) => m.PaymentSuccessPage,
);
const paymentFailed = () => import('../features/payment-result/payment-failed-page.tsx');
const PaymentFailedPage = page(paymentFailed, (m) => m.PaymentFailedPage);
const PaymentCancelledPage = page(paymentFailed, (m) => m.PaymentCancelledPage);
const GetHelpPage = page(
  () => import('../features/get-help/get-help-page.tsx'),
  (m) => m.GetHelpPage,
);
const affiliate = () => import('../features/affiliate/affiliate-pages.ts');
const AffiliateLoginPage = page(affiliate, (m) => m.AffiliateLoginPage);
const AffiliateRegisterPage = page(affiliate, (m) => m.AffiliateRegisterPage);
const AffiliateApplyPage = page(affiliate, (m) => m.AffiliateApplyPage);
const AffiliateDashboardPage = page(affiliate, (m) => m.AffiliateDashboardPage);
const AffiliateSettingsPage = page(affiliate, (m) => m.AffiliateSettingsPage);
const AdminPanelPage = page(
  () => import('../features/admin/admin-panel-page.tsx'),
  (m) => m.AdminPanelPage,
);

const SettingsPage = page(
  () => import('../features/settings/settings-page.tsx'),
  (m) => m.SettingsPage,
);

export type RouteEntry = { path: string } & (
  | {
      Component: ComponentType;
      /** Admins only; others are sent to /dashboard. */
      adminOnly?: boolean;
      redirectTo?: never;
    }
  | {
      redirectTo: string;
      /** Shown at this path instead, while `redirectTo` has no screen in the same table. */
      fallback?: ComponentType;
      /** Go back to the page the visitor was headed for before signing in, when there is one. */
      toOrigin?: boolean;
      /** Keep the query (e.g. the affiliate redirects keep `ref`). */
      keepQuery?: boolean;
      Component?: never;
    }
);

export type RouteTable = readonly RouteEntry[];

/** Pages for everyone, signed in or not (the legal pages, the short API documentation). */
const OPEN_PAGES: RouteTable = [
  { path: '/terms', Component: TermsPage },
  { path: '/privacy-policy', Component: PrivacyPolicyPage },
  { path: '/cookies', Component: CookiePolicyPage },
  { path: '/gdpr', Component: GdprPage },
  { path: '/affiliate/terms', Component: AffiliateTermsPage },
  { path: '/affiliate/privacy-policy', Component: AffiliatePrivacyPage },
  { path: '/affiliate/privacy', Component: AffiliatePrivacyPage },
  { path: '/api/docs', Component: ApiDocsPage },
  { path: '/api-reference', Component: ApiReferencePage },
];

/**
 * The signed-out route table, one line each. Screens of
 * later features (affiliate login and registration, /api-reference) join it when they exist.
 */
export const SIGNED_OUT_ROUTES: RouteTable = [
  { path: '/', Component: LandingPage },
  { path: '/home', Component: LandingPage },
  { path: '/pricing', Component: PricingPage },
  { path: '/help', Component: HelpPage },
  { path: '/login', Component: LoginPage },
  { path: '/register', Component: RegisterPage },
  { path: '/reset-password', Component: ResetPasswordPage },
  // Signed out, the affiliate area opens on its login.
  { path: '/affiliate', Component: AffiliateLoginPage },
  { path: '/affiliate/login', Component: AffiliateLoginPage },
  { path: '/affiliate/dashboard', Component: AffiliateLoginPage },
  { path: '/affiliate/register', Component: AffiliateRegisterPage },
  ...OPEN_PAGES,
];

/**
 * The signed-in route table and its redirects. Screens of later features
 * (API access, help desk, admin panel, affiliate area) join it when they exist.
 */
export const SIGNED_IN_ROUTES: RouteTable = [
  { path: '/dashboard', Component: DashboardPage },
  { path: '/instances', Component: InstancesPage },
  // Before /instances/:id, which would otherwise take 'new' for an id.
  { path: '/instances/new', Component: NewInstancePage },
  { path: '/instances/:id', Component: InstanceDetailPage },
  { path: '/profile', Component: ProfilePage },
  { path: '/billing', Component: BillingPage },
  { path: '/api-access', Component: ApiAccessPage },
  // Where the payment providers send the user back; error and cancelled share a screen.
  { path: '/payment-success', Component: PaymentSuccessPage },
  { path: '/payment-error', Component: PaymentFailedPage },
  { path: '/payment-cancelled', Component: PaymentCancelledPage },
  { path: '/get-help', Component: GetHelpPage },
  { path: '/admin-panel', Component: AdminPanelPage, adminOnly: true },
  { path: '/affiliate', Component: AffiliateDashboardPage },
  { path: '/affiliate/dashboard', Component: AffiliateDashboardPage },
  { path: '/affiliate/settings', Component: AffiliateSettingsPage },
  { path: '/affiliate/apply', Component: AffiliateApplyPage },
  ...OPEN_PAGES,
  { path: '/', redirectTo: '/dashboard' },
  { path: '/home', redirectTo: '/dashboard' },
  { path: '/login', redirectTo: '/dashboard', toOrigin: true },
  { path: '/register', redirectTo: '/dashboard', toOrigin: true },
  // Signed-in users get the Subscription and Billing page; the fallback only serves a
  // table without /billing.
  { path: '/pricing', redirectTo: '/billing', fallback: PricingPage },
  { path: '/affiliate/login', redirectTo: '/affiliate/dashboard', keepQuery: true },
  { path: '/affiliate/register', redirectTo: '/affiliate/dashboard', keepQuery: true },
];

export type ResolvedRoute =
  | { kind: 'screen'; Component: ComponentType; adminOnly: boolean }
  | { kind: 'redirect'; to: string; toOrigin: boolean; keepQuery: boolean };

const pathnameOf = (path: string) => path.split(/[?#]/)[0] ?? path;

const entryFor = (path: string, table: RouteTable) =>
  table.find((entry) => matchPath(entry.path, pathnameOf(path)) !== null);

/** What `path` leads to in `table`: a screen, a redirect, or nothing (Not Found). */
export function resolveRoute(path: string, table: RouteTable): ResolvedRoute | null {
  const entry = entryFor(path, table);
  if (!entry) return null;
  if (entry.Component)
    return { kind: 'screen', Component: entry.Component, adminOnly: entry.adminOnly ?? false };
  if (entry.fallback && !hasScreen(entry.redirectTo, table))
    return { kind: 'screen', Component: entry.fallback, adminOnly: false };
  return {
    kind: 'redirect',
    to: entry.redirectTo,
    toOrigin: entry.toOrigin ?? false,
    keepQuery: entry.keepQuery ?? false,
  };
}

/** Whether a screen (not a redirect) answers `path` in `table`. */
export function hasScreen(path: string, table: RouteTable): boolean {
  return resolveRoute(path, table)?.kind === 'screen';
}

/** Signed-in screens that anonymous visitors are sent to /login from (the origin is remembered). */
function isProtected(path: string): boolean {
  return hasScreen(path, SIGNED_IN_ROUTES) && entryFor(path, SIGNED_OUT_ROUTES) === undefined;
}

/** Paths of the signed-in screens that have no signed-out entry. */
export const PROTECTED_PATHS: readonly string[] = SIGNED_IN_ROUTES.filter(
  (entry) => entry.Component !== undefined && isProtected(entry.path),
).map((entry) => entry.path);

export const tableFor = (signedIn: boolean): RouteTable => (signedIn ? SIGNED_IN_ROUTES : SIGNED_OUT_ROUTES);

/**
 * The table with the screens of the host itself: Settings where the host has settings (desktop), for
 * visitors too, so that a wrong server can be corrected before signing in. The web has none.
 */
export function withHostScreens(table: RouteTable, host: Pick<Platform, 'settings'>): RouteTable {
  return host.settings ? [{ path: SETTINGS_PATH, Component: SettingsPage }, ...table] : table;
}
