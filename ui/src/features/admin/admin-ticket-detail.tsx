import CloseIcon from '@mui/icons-material/Close';
import {
  Box,
  Button,
  ButtonGroup,
  Card,
  CardContent,
  Divider,
  IconButton,
  Stack,
  Typography,
} from '@mui/material';
import { errorMessage } from '../../api/api-error.ts';
import { type Ticket, type TicketStatus, useSetTicketStatusMutation } from '../../api/help.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { HelpImages } from '../get-help/help-image.tsx';
import { SupportText } from '../get-help/support-text.tsx';
import { CATEGORY_LABELS, formatTime, TicketStatusBadge } from '../get-help/ticket-status.tsx';
import { AdminTicketResponse } from './admin-ticket-response.tsx';
import { TicketPromise } from './ticket-promise.tsx';

const STATUSES: readonly { value: TicketStatus; label: string }[] = [
  { value: 'open', label: 'Open' },
  { value: 'answered', label: 'Answered' },
  { value: 'closed', label: 'Closed' },
];

/** What the customer agreed to share at submit time: plan, standing and their instances. */
function ContextSnapshot({ context }: { context: NonNullable<Ticket['context']> }) {
  return (
    <Box
      component="section"
      aria-label="Shared context"
      sx={{ p: 2, borderRadius: 2, bgcolor: 'action.hover' }}
    >
      <Typography variant="subtitle2" component="h4">
        Shared context (at submit time)
      </Typography>
      <Typography variant="body2">
        Plan: {context.plan} · Standing: {context.standing}
      </Typography>
      {context.instances.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          No instances.
        </Typography>
      ) : (
        <Box component="ul" sx={{ m: 0, pl: 2.5 }}>
          {context.instances.map((instance, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a frozen snapshot, never reordered
            <Typography component="li" variant="body2" key={i}>
              {instance.name} ({instance.type}): {instance.status}
              {instance.lastError ? ` · last error: ${instance.lastError}` : ''}
              {instance.ssl ? ` · SSL: ${instance.ssl}` : ''}
            </Typography>
          ))}
        </Box>
      )}
    </Box>
  );
}

const STATUS_FAILED = 'Failed to update status';

/**
 * One ticket in the admin's Help Desk: the customer's message and images, the shared context, status
 * buttons, and the response form (text, images, Insert Link, notification options). Its Close button
 * closes the ticket (status closed) and the panel; a sent response clears the panel.
 */
export function AdminTicketDetail({ ticket, onClose }: { ticket: Ticket; onClose(): void }) {
  const toast = useToast();
  const setStatus = useSetTicketStatusMutation();
  const headingId = `admin-ticket-${ticket.id}`;

  const changeStatus = (status: TicketStatus, then?: () => void) =>
    setStatus.mutate(
      { id: ticket.id, status },
      {
        onSuccess: () => {
          toast.success(`Status updated to ${status}`);
          then?.();
        },
        onError: (error) => toast.error(errorMessage(error, STATUS_FAILED)),
      },
    );

  return (
    <Card component="section" aria-labelledby={headingId}>
      <CardContent sx={{ p: 3 }}>
        <Stack direction="row" sx={{ gap: 1, justifyContent: 'space-between', alignItems: 'flex-start' }}>
          <Box sx={{ minWidth: 0 }}>
            <Typography id={headingId} variant="h6" component="h3" sx={{ overflowWrap: 'anywhere' }}>
              {ticket.subject}
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
              {ticket.name} · {ticket.email} · {formatTime(ticket.createdAt)} ·{' '}
              {CATEGORY_LABELS[ticket.category] ?? ticket.category}
              {ticket.path ? ` · sent from ${ticket.path}` : ''}
            </Typography>
            <TicketPromise ticket={ticket} />
          </Box>
          <Stack direction="row" sx={{ gap: 1, alignItems: 'center' }}>
            <TicketStatusBadge status={ticket.status} />
            <IconButton aria-label="Close ticket details" onClick={onClose} size="small">
              <CloseIcon />
            </IconButton>
          </Stack>
        </Stack>

        <Typography variant="subtitle1" component="h4" sx={{ mt: 3, mb: 1, fontWeight: 600 }}>
          User Message
        </Typography>
        <SupportText text={ticket.message} />
        {ticket.attachments.length > 0 && (
          <Box sx={{ mt: 1.5 }}>
            <HelpImages attachments={ticket.attachments} label="User images" />
          </Box>
        )}
        {ticket.context && (
          <Box sx={{ mt: 2 }}>
            <ContextSnapshot context={ticket.context} />
          </Box>
        )}

        <Typography variant="subtitle1" component="h4" sx={{ mt: 3, mb: 1, fontWeight: 600 }}>
          Update Status
        </Typography>
        <ButtonGroup aria-label="Update Status" disabled={setStatus.isPending}>
          {STATUSES.map(({ value, label }) => (
            <Button
              key={value}
              variant={ticket.status === value ? 'contained' : 'outlined'}
              aria-pressed={ticket.status === value}
              onClick={() => changeStatus(value)}
            >
              {label}
            </Button>
          ))}
        </ButtonGroup>

        {ticket.adminResponse && (
          <Box sx={{ mt: 3 }}>
            <Typography variant="body2" color="text.secondary">
              Last responded {formatTime(ticket.adminResponse.respondedAt)}
            </Typography>
            {ticket.adminResponse.attachments.length > 0 && (
              <>
                <Typography variant="subtitle2" component="h4" sx={{ mt: 1, mb: 1 }}>
                  Response Attachments
                </Typography>
                <HelpImages attachments={ticket.adminResponse.attachments} label="Response Attachments" />
              </>
            )}
          </Box>
        )}

        <Divider sx={{ my: 3 }} />
        <AdminTicketResponse
          ticket={ticket}
          onSent={onClose}
          closing={setStatus.isPending}
          onCloseTicket={() => changeStatus('closed', onClose)}
        />
      </CardContent>
    </Card>
  );
}
