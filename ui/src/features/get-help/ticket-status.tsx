import { Chip } from '@mui/material';
import type { TicketStatus } from '../../api/help.queries.ts';

const COLORS = { open: 'info', answered: 'success', closed: 'default' } as const;

/** A ticket's status as a small badge: open, answered or closed. */
export function TicketStatusBadge({ status }: { status: TicketStatus }) {
  return <Chip size="small" label={status} color={COLORS[status]} />;
}

export const CATEGORY_LABELS: Record<string, string> = {
  general: 'General question',
  technical: 'Technical problem',
  billing: 'Billing',
  feature: 'Feature request',
  bug: 'Bug report',
};

export const formatTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
