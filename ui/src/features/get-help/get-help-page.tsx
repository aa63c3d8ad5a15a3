import MarkEmailReadIcon from '@mui/icons-material/MarkEmailRead';
import SupportAgentIcon from '@mui/icons-material/SupportAgent';
import { Box, Button, Container, Stack, Tab, Tabs, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/api-error.ts';
import { type Ticket, useDeleteTicketMutation, useMyTicketsQuery } from '../../api/help.queries.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { IconHeading } from '../../components/icon-heading.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { RefreshButton } from '../../components/refresh-button.tsx';
import { HELP_DESK_TOASTS, ToastTimingsProvider } from '../../components/toasts/toast-timings.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { answerExpected } from './support-promise.ts';
import { TicketCard } from './ticket-card.tsx';
import { TicketForm } from './ticket-form.tsx';

const DELETE_FAILED = 'Failed to delete ticket';

const TABS = [
  { value: 'send', label: 'Send Message' },
  { value: 'my', label: 'My Tickets' },
  { value: 'answered', label: 'Answered' },
] as const;
type TabValue = (typeof TABS)[number]['value'];
const isTab = (value: unknown): value is TabValue => TABS.some((tab) => tab.value === value);

/**
 * The tab: from navigation state (a helpdesk notification opens 'my'), then `?tab=`, else send; a new
 * navigation to this page (e.g. the bell's link while the page is open) applies its tab again.
 */
function useTabFromNavigation() {
  const location = useLocation();
  const [params] = useSearchParams();
  const fromState = (location.state as { tab?: unknown } | null)?.tab;
  const fromQuery = params.get('tab');
  const wanted: TabValue = isTab(fromState) ? fromState : isTab(fromQuery) ? fromQuery : 'send';
  const [tab, setTab] = useState<TabValue>(wanted);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new navigation (its key) resets the tab
  useEffect(() => setTab(wanted), [location.key]);
  return [tab, setTab] as const;
}

function Sent({
  ticket,
  onAnother,
  onShowTickets,
}: {
  ticket: Ticket;
  onAnother(): void;
  onShowTickets(): void;
}) {
  return (
    <Box role="status" sx={{ textAlign: 'center', py: 5 }}>
      <MarkEmailReadIcon color="success" sx={{ fontSize: 56, mb: 1 }} />
      <Typography variant="h6" component="p" gutterBottom>
        Your message was sent.
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        {answerExpected(ticket)} Support answers here and in your notifications.
      </Typography>
      <Stack direction="row" sx={{ gap: 2, justifyContent: 'center', flexWrap: 'wrap' }}>
        <Button variant="contained" onClick={onShowTickets}>
          View my tickets
        </Button>
        <Button variant="outlined" onClick={onAnother}>
          Send another message
        </Button>
      </Stack>
    </Box>
  );
}

function TicketList({
  answeredOnly,
  onDelete,
}: {
  answeredOnly: boolean;
  onDelete: (ticket: Ticket) => void;
}) {
  const tickets = useMyTicketsQuery();
  const loading = answeredOnly ? 'Loading answered tickets...' : 'Loading your tickets...';
  const empty = answeredOnly ? 'No answered tickets yet.' : 'No tickets yet.';
  const items = (tickets.data?.items ?? []).filter(
    (ticket) => !answeredOnly || ticket.status === 'answered' || Boolean(ticket.adminResponse?.text),
  );
  return (
    <Stack spacing={2}>
      <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
        <RefreshButton query={tickets} />
      </Box>
      <LoadState query={tickets} loading={loading} failed="Failed to load your tickets" />
      {tickets.isSuccess && items.length === 0 && (
        <Typography color="text.secondary" sx={{ textAlign: 'center', py: 4 }}>
          {empty}
        </Typography>
      )}
      {items.map((ticket) => (
        <TicketCard key={ticket.id} ticket={ticket} forceAnswered={answeredOnly} onDelete={onDelete} />
      ))}
    </Stack>
  );
}

/**
 * Get Help, /get-help (spec platform-area "Get Help"): send a support message with images, read one's
 * tickets and the answers of support. The public /help page (FAQ and contact form) is another screen.
 * Its toasts show for the support screens' times (3 s success, 5 s errors).
 */
export function GetHelpPage() {
  return (
    <ToastTimingsProvider timings={HELP_DESK_TOASTS}>
      <GetHelp />
    </ToastTimingsProvider>
  );
}

function GetHelp() {
  const [tab, setTab] = useTabFromNavigation();
  const [sent, setSent] = useState<Ticket | null>(null);
  const [toDelete, setToDelete] = useState<Ticket | null>(null);
  const remove = useDeleteTicketMutation();
  const toast = useToast();

  return (
    <Container maxWidth="md" sx={{ py: { xs: 3, sm: 5 } }}>
      <IconHeading
        icon={<SupportAgentIcon />}
        title="Get Help"
        subtitle="Send a message to support and follow the answers to your tickets."
      />
      <Tabs
        value={tab}
        onChange={(_event, value: TabValue) => setTab(value)}
        aria-label="Get Help sections"
        variant="scrollable"
        sx={{ mb: 3, borderBottom: 1, borderColor: 'divider' }}
      >
        {TABS.map(({ value, label }) => (
          <Tab
            key={value}
            value={value}
            label={label}
            id={`get-help-tab-${value}`}
            aria-controls={`get-help-panel-${value}`}
          />
        ))}
      </Tabs>
      <Box role="tabpanel" id={`get-help-panel-${tab}`} aria-labelledby={`get-help-tab-${tab}`}>
        {tab === 'send' &&
          (sent ? (
            <Sent
              ticket={sent}
              onAnother={() => setSent(null)}
              onShowTickets={() => {
                setSent(null);
                setTab('my');
              }}
            />
          ) : (
            <TicketForm onSent={setSent} />
          ))}
        {tab !== 'send' && <TicketList answeredOnly={tab === 'answered'} onDelete={setToDelete} />}
      </Box>
      <ConfirmDialog
        open={toDelete !== null}
        title="Delete this ticket?"
        text={`"${toDelete?.subject ?? ''}" and its images will be deleted for good, with any answer from support.`}
        confirmLabel="Delete"
        destructive
        pending={remove.isPending}
        onConfirm={() => {
          if (!toDelete) return;
          remove.mutate(toDelete.id, {
            onSuccess: () => {
              setToDelete(null);
              toast.success('Ticket deleted');
            },
            onError: (error) => toast.error(errorMessage(error, DELETE_FAILED)),
          });
        }}
        onClose={() => {
          setToDelete(null);
          remove.reset();
        }}
      />
    </Container>
  );
}
