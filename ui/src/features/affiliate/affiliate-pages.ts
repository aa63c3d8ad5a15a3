// The affiliate area's pages: one lazy chunk (route-table.tsx).
export { AffiliateApplyPage } from './affiliate-apply-page.tsx';
export { AffiliateDashboardPage } from './affiliate-dashboard-page.tsx';
export { AffiliateLoginPage } from './affiliate-login-page.tsx';
export { AffiliateRegisterPage } from './affiliate-register-page.tsx';
export { AffiliateSettingsPage } from './affiliate-settings-page.tsx';
