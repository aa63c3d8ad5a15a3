/**
 * Where a system notification leads when clicked (desktop, and browsers that were granted notifications):
 * the screen that deals with its kind. The bell's own panel opens only help-desk ones.
 */

/** Where a click on a help-desk notification leads: the 'my' tab of Get Help. */
export const HELPDESK_TARGET = '/get-help?tab=my';

const TARGETS: Record<string, string> = {
  helpdesk: HELPDESK_TARGET,
  instance: '/instances',
  billing: '/billing',
  trial: '/billing',
  security: '/profile',
};

/** The in-app route for a notification of `type` (welcome, announcements and others: the dashboard). */
export function notificationTarget(type: string): string {
  return TARGETS[type] ?? '/dashboard';
}
