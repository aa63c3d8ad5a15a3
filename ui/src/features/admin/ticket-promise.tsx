import { Chip, Stack, Typography } from '@mui/material';
import type { Ticket } from '../../api/help.queries.ts';
import { SUPPORT_PLAN_NAMES } from '../get-help/support-promise.ts';
import { formatTime } from '../get-help/ticket-status.tsx';

/** The ticket's plan, and for an open one when its answer is due (red once that time has passed). */
export function TicketPromise({ ticket }: { ticket: Ticket }) {
  return (
    <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
      <Chip size="small" variant="outlined" label={SUPPORT_PLAN_NAMES[ticket.plan]} />
      {ticket.status === 'open' && (
        <Typography
          variant="body2"
          color={ticket.overdue ? 'error' : 'text.secondary'}
          sx={{ fontWeight: ticket.overdue ? 600 : undefined }}
        >
          {ticket.overdue ? 'Overdue: was due' : 'Due'} {formatTime(ticket.dueAt)}
        </Typography>
      )}
    </Stack>
  );
}
