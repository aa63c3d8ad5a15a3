import type { Migration } from 'kysely/migration';
import * as createAccounts from './20261122T000000-create-accounts.ts';
import * as createPasswordResetTokens from './20261123T000000-create-password-reset-tokens.ts';
import * as createNotifications from './20261123T000100-create-notifications.ts';
import * as createContactMessages from './20261123T000200-create-contact-messages.ts';
import * as createInstances from './20261124T000000-create-instances.ts';
import * as addInstanceSites from './20261125T000000-add-instance-sites.ts';
import * as createInvoices from './20261126T000000-create-invoices.ts';
import * as createPayments from './20261127T000000-create-payments.ts';
import * as addSessionRevocation from './20261128T000000-add-session-revocation.ts';
import * as createSetupTokens from './20261128T000001-create-setup-tokens.ts';
import * as addDomainVerification from './20261128T000100-add-domain-verification.ts';
import * as createHelpDesk from './20261202T000001-create-help-desk.ts';
import * as createAffiliates from './20261203T000001-create-affiliates.ts';
import * as createApiKeys from './20261205T000001-create-api-keys.ts';
import * as affPartialRefunds from './20261211T000001-aff-partial-refunds.ts';
import * as aff2ClickVisitorRetention from './20261212T000001-aff2-click-visitor-retention.ts';
import * as addTicketDueTimes from './20261214T000001-add-ticket-due-times.ts';
import * as createInstanceUsage from './20261215T000001-create-instance-usage.ts';
import * as createInstanceBackups from './20261220T000001-create-instance-backups.ts';
import * as createBackupDownloadUses from './20261222T000001-create-backup-download-uses.ts';
import * as keepBackupsOfDeletedInstances from './20261226T000001-keep-backups-of-deleted-instances.ts';
import * as instanceSettingsByType from './20261229T000001-instance-settings-by-type.ts';

/** Every migration, in order. Add new ones at the end; never edit an old one. */
export const migrations: Record<string, Migration> = {
  '20261122T000000-create-accounts': createAccounts,
  '20261123T000000-create-password-reset-tokens': createPasswordResetTokens,
  '20261123T000100-create-notifications': createNotifications,
  '20261123T000200-create-contact-messages': createContactMessages,
  '20261124T000000-create-instances': createInstances,
  '20261125T000000-add-instance-sites': addInstanceSites,
  '20261126T000000-create-invoices': createInvoices,
  '20261127T000000-create-payments': createPayments,
  '20261128T000000-add-session-revocation': addSessionRevocation,
  '20261128T000001-create-setup-tokens': createSetupTokens,
  '20261128T000100-add-domain-verification': addDomainVerification,
  '20261202T000001-create-help-desk': createHelpDesk,
  '20261203T000001-create-affiliates': createAffiliates,
  '20261205T000001-create-api-keys': createApiKeys,
  '20261211T000001-aff-partial-refunds': affPartialRefunds,
  '20261212T000001-aff2-click-visitor-retention': aff2ClickVisitorRetention,
  '20261214T000001-add-ticket-due-times': addTicketDueTimes,
  '20261215T000001-create-instance-usage': createInstanceUsage,
  '20261220T000001-create-instance-backups': createInstanceBackups,
  '20261222T000001-create-backup-download-uses': createBackupDownloadUses,
  '20261226T000001-keep-backups-of-deleted-instances': keepBackupsOfDeletedInstances,
  '20261229T000001-instance-settings-by-type': instanceSettingsByType,
};
