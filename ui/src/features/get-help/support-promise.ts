import { type SupportPlan, supportResponseHours } from '@berth/openapi/rules';
import type { Ticket } from '../../api/help.queries.ts';
import { formatTime } from './ticket-status.tsx';

/** The plans as the help desk shows them ('free': a trial or a lapsed plan, answered in Starter's time). */
export const SUPPORT_PLAN_NAMES: Record<SupportPlan, string> = {
  free: 'Trial',
  starter: 'Starter',
  pro: 'Pro',
};

/** When the customer can expect support's answer to an open ticket: its due time and the plan's promise. */
export function answerExpected(ticket: Pick<Ticket, 'dueAt' | 'plan'>): string {
  const hours = supportResponseHours(ticket.plan);
  const plan = ticket.plan === 'free' ? '' : ` on ${SUPPORT_PLAN_NAMES[ticket.plan]}`;
  return `Expect an answer by ${formatTime(ticket.dueAt)} (within ${hours} hours${plan}).`;
}
