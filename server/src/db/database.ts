import type { Kysely, Transaction } from 'kysely';
import type {
  AffiliateClickTable,
  AffiliateLedgerTable,
  AffiliatePayoutTable,
  AffiliateReferralTable,
  AffiliateTable,
} from './tables/affiliates.ts';
import type { ApiIdempotencyTable, ApiKeyTable } from './tables/api-keys.ts';
import type { ContactMessageTable } from './tables/contact-messages.ts';
import type { AnnouncementTable, HelpTicketTable, HelpUploadTable } from './tables/help-desk.ts';
import type {
  InstanceUsageAlertTable,
  InstanceUsageRollupTable,
  InstanceUsageSampleTable,
} from './tables/instance-usage.ts';
import type {
  BackupDownloadUseTable,
  BackupStoreOrphanTable,
  BackupStoreSweepTable,
  InstanceBackupTable,
  InstanceCredentialsTable,
  InstanceTable,
} from './tables/instances.ts';
import type { InvoiceTable, PaymentRefundTable } from './tables/invoices.ts';
import type { NotificationTable } from './tables/notifications.ts';
import type { PasswordResetTokenTable } from './tables/password-reset-tokens.ts';
import type { PaymentEventTable, PaymentOrderTable, PaymentSettingsTable } from './tables/payments.ts';
import type { RateLimitTable } from './tables/rate-limits.ts';
import type { RefreshTokenTable, SetupTokenTable } from './tables/sessions.ts';
import type { SubscriptionTable } from './tables/subscriptions.ts';
import type { UserTable } from './tables/users.ts';

/** The platform database, table by table (snake_case, as in SQL). */
export interface Database {
  users: UserTable;
  subscriptions: SubscriptionTable;
  rate_limits: RateLimitTable;
  password_reset_tokens: PasswordResetTokenTable;
  refresh_tokens: RefreshTokenTable;
  setup_tokens: SetupTokenTable;
  notifications: NotificationTable;
  contact_messages: ContactMessageTable;
  instances: InstanceTable;
  instance_credentials: InstanceCredentialsTable;
  instance_backups: InstanceBackupTable;
  backup_download_uses: BackupDownloadUseTable;
  backup_store_orphans: BackupStoreOrphanTable;
  backup_store_sweeps: BackupStoreSweepTable;
  instance_usage_samples: InstanceUsageSampleTable;
  instance_usage_rollups: InstanceUsageRollupTable;
  instance_usage_alerts: InstanceUsageAlertTable;
  invoices: InvoiceTable;
  payment_settings: PaymentSettingsTable;
  payment_orders: PaymentOrderTable;
  payment_events: PaymentEventTable;
  payment_refunds: PaymentRefundTable;
  help_tickets: HelpTicketTable;
  help_uploads: HelpUploadTable;
  announcements: AnnouncementTable;
  affiliates: AffiliateTable;
  affiliate_clicks: AffiliateClickTable;
  affiliate_referrals: AffiliateReferralTable;
  affiliate_ledger: AffiliateLedgerTable;
  affiliate_payouts: AffiliatePayoutTable;
  api_keys: ApiKeyTable;
  api_idempotency: ApiIdempotencyTable;
}

export type Db = Kysely<Database>;
/** Repositories take either the pool-backed instance or an open transaction. */
export type DbOrTx = Kysely<Database> | Transaction<Database>;
