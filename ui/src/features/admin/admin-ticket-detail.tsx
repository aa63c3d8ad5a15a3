import CloseIcon from '@mui/icons-material/Close';
import InsertLinkIcon from '@mui/icons-material/InsertLink';
import {
  Box,
  Button,
  ButtonGroup,
  Card,
  CardContent,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Divider,
  FormControlLabel,
  IconButton,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { type FormEvent, useId, useState } from 'react';
import { errorMessage } from '../../api/api-error.ts';
import {
  type HelpAttachment,
  type Ticket,
  type TicketStatus,
  useAnswerTicketMutation,
  useNotificationsConfigQuery,
  useSetTicketStatusMutation,
} from '../../api/help.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { AttachmentPicker } from '../get-help/attachment-picker.tsx';
import { HelpImages } from '../get-help/help-image.tsx';
import { SupportText } from '../get-help/support-text.tsx';
import { CATEGORY_LABELS, formatTime, TicketStatusBadge } from '../get-help/ticket-status.tsx';
import { TicketPromise } from './ticket-promise.tsx';

const STATUSES: readonly { value: TicketStatus; label: string }[] = [
  { value: 'open', label: 'Open' },
  { value: 'answered', label: 'Answered' },
  { value: 'closed', label: 'Closed' },
];

/** Asks for a URL and optional text; answers a markdown-style link `[text](url)`. */
function InsertLinkDialog({
  open,
  onClose,
  onInsert,
}: {
  open: boolean;
  onClose(): void;
  onInsert(link: string): void;
}) {
  const id = useId();
  const [url, setUrl] = useState('');
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const insert = (event: FormEvent) => {
    event.preventDefault();
    const target = url.trim();
    if (!/^(https?:\/\/|mailto:)\S+$/i.test(target)) {
      setError('Enter a URL starting with https://, http:// or mailto:');
      return;
    }
    const label = text.trim().replace(/[[\]]/g, '') || target;
    onInsert(`[${label}](${target})`);
    setUrl('');
    setText('');
    setError(null);
  };
  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth aria-labelledby={`${id}-title`}>
      <Box component="form" noValidate onSubmit={insert}>
        <DialogTitle id={`${id}-title`}>Insert Link</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <TextField
              label="URL"
              value={url}
              onChange={(event) => setUrl(event.target.value)}
              error={error !== null}
              helperText={error ?? undefined}
              autoFocus
              placeholder="https://"
            />
            <TextField
              label="Link text (optional)"
              value={text}
              onChange={(event) => setText(event.target.value)}
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="contained">
            Insert
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}

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
const SAVE_FAILED = 'Failed to save response';

/**
 * One ticket in the admin's Help Desk: the customer's message and images, the shared context, status
 * buttons, and the response form (text, images, Insert Link, notification options). Its Close button
 * closes the ticket (status closed) and the panel; a sent response clears the panel.
 */
export function AdminTicketDetail({ ticket, onClose }: { ticket: Ticket; onClose(): void }) {
  const toast = useToast();
  const config = useNotificationsConfigQuery();
  const smtpEnabled = config.data?.smtpEnabled === true;
  const setStatus = useSetTicketStatusMutation();
  const answer = useAnswerTicketMutation();
  const [text, setText] = useState(ticket.adminResponse?.text ?? '');
  const [attachments, setAttachments] = useState<HelpAttachment[]>(ticket.adminResponse?.attachments ?? []);
  const [notify, setNotify] = useState(true);
  const [notifyTitle, setNotifyTitle] = useState('');
  const [notifyMessage, setNotifyMessage] = useState('');
  const [notifyEmail, setNotifyEmail] = useState(false);
  const [textError, setTextError] = useState<string | null>(null);
  const [linkOpen, setLinkOpen] = useState(false);
  const headingId = `admin-ticket-${ticket.id}`;

  const send = (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) {
      setTextError('Response text is required');
      return;
    }
    answer.mutate(
      {
        id: ticket.id,
        text: text.trim(),
        attachments,
        notify,
        notifyTitle: notifyTitle.trim() || undefined,
        notifyMessage: notifyMessage.trim() || undefined,
        notifyEmail: smtpEnabled && notifyEmail,
      },
      {
        onSuccess: () => {
          toast.success('Response saved');
          // The panel is cleared: the form and its notification options go with it.
          onClose();
        },
        onError: (error) => toast.error(errorMessage(error, SAVE_FAILED)),
      },
    );
  };

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
        <Stack component="form" noValidate onSubmit={send} spacing={2} aria-label="Respond to the ticket">
          <TextField
            label="Response"
            placeholder="Write your response to the user..."
            multiline
            minRows={5}
            value={text}
            onChange={(event) => {
              setText(event.target.value);
              setTextError(null);
            }}
            error={textError !== null}
            helperText={textError ?? 'Plain text; links as [text](https://…) open in a new tab'}
          />
          <Stack direction="row" sx={{ gap: 2, flexWrap: 'wrap', alignItems: 'flex-start' }}>
            <AttachmentPicker value={attachments} onChange={setAttachments} disabled={answer.isPending} />
            <Button variant="outlined" startIcon={<InsertLinkIcon />} onClick={() => setLinkOpen(true)}>
              Insert Link
            </Button>
          </Stack>
          <Box sx={{ p: 2, borderRadius: 2, border: 1, borderColor: 'divider' }}>
            <FormControlLabel
              control={<Checkbox checked={notify} onChange={(event) => setNotify(event.target.checked)} />}
              label="Notify the user in the app"
            />
            {notify && (
              <Stack spacing={2} sx={{ mt: 1 }}>
                <TextField
                  label="Notification title (optional)"
                  value={notifyTitle}
                  onChange={(event) => setNotifyTitle(event.target.value)}
                />
                <TextField
                  label="Notification message (optional)"
                  value={notifyMessage}
                  onChange={(event) => setNotifyMessage(event.target.value)}
                  helperText="If left blank, a default title and message will be used"
                />
              </Stack>
            )}
            {smtpEnabled && (
              <FormControlLabel
                control={
                  <Checkbox
                    checked={notifyEmail}
                    onChange={(event) => setNotifyEmail(event.target.checked)}
                  />
                }
                label="Also send via email"
              />
            )}
          </Box>
          <Stack direction="row" sx={{ gap: 2, justifyContent: 'flex-end' }}>
            <Button onClick={() => changeStatus('closed', onClose)} disabled={setStatus.isPending}>
              Close
            </Button>
            <Button type="submit" variant="contained" disabled={answer.isPending}>
              {answer.isPending ? 'Saving...' : 'Send Response'}
            </Button>
          </Stack>
        </Stack>
      </CardContent>
      <InsertLinkDialog
        open={linkOpen}
        onClose={() => setLinkOpen(false)}
        onInsert={(link) => {
          setText((current) =>
            current && !/\s$/.test(current) ? `${current} ${link}` : `${current}${link}`,
          );
          setLinkOpen(false);
        }}
      />
    </Card>
  );
}
