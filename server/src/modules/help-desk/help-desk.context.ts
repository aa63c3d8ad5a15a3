import type { Db } from '../../db/database.ts';
import type { TicketContext } from '../../db/tables/help-desk.ts';
import type { Subscription } from '../subscriptions/subscriptions.schemas.ts';
import { findInstanceFacts } from './help-desk.repository.ts';

/**
 * The context snapshot a customer may attach to a ticket (on by default, their choice): plan and
 * standing, and per instance its type, status, last error and SSL state, as they are at submit time.
 * Support sees it beside the ticket and need not ask.
 */
export async function takeContextSnapshot(
  db: Db,
  subscription: Pick<Subscription, 'planLabel' | 'standing'>,
  userId: string,
): Promise<TicketContext> {
  const instances = await findInstanceFacts(db, userId);
  return {
    plan: subscription.planLabel,
    standing: subscription.standing,
    instances: instances.map((i) => ({
      name: i.name,
      type: i.type,
      status: i.status,
      lastError: i.status_message,
      ssl: i.custom_domain ? `${i.ssl?.status ?? 'not checked'} (${i.custom_domain})` : null,
    })),
  };
}
