import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

export interface SubscriptionTable {
  user_id: string;
  plan: 'free' | 'starter' | 'pro';
  /** trialing: inside the free trial; active: paid; canceled / past_due / expired: not paid. */
  status: 'trialing' | 'active' | 'past_due' | 'canceled' | 'expired';
  billing_cycle: 'monthly' | 'yearly' | null;
  trial_ends_at: Date | null;
  current_period_end: Date | null;
  cancel_at_period_end: ColumnType<boolean, boolean | undefined, boolean>;
  addon_instances: ColumnType<number, number | undefined, number>;
  /** When the "trial ends in 5 minutes" notification went out (null: not yet). */
  trial_warning_sent_at: ColumnType<Date | null, never, Date | null>;
  /** When the "trial ended" notification went out (null: not yet). */
  trial_ended_sent_at: ColumnType<Date | null, never, Date | null>;
  /** When the "subscription ended" notice of the current paid period went out (null: not yet). */
  period_ended_sent_at: ColumnType<Date | null, never, Date | null>;
  /** Who bills the current period; null during the trial. */
  provider: 'stripe' | 'paypal_business' | 'paypal_standard' | 'metamask' | 'manual' | null;
  /** The Stripe or PayPal subscription that renews it. */
  provider_subscription_id: string | null;
  /** The user's one Stripe customer. */
  stripe_customer_id: string | null;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, Date>;
}

export type SubscriptionRow = Selectable<SubscriptionTable>;
export type NewSubscriptionRow = Insertable<SubscriptionTable>;
export type SubscriptionRowUpdate = Updateable<SubscriptionTable>;
