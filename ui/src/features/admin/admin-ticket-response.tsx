import InsertLinkIcon from '@mui/icons-material/InsertLink';
import {
  Box,
  Button,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  Stack,
  TextField,
} from '@mui/material';
import { type FormEvent, useId, useState } from 'react';
import { errorMessage } from '../../api/api-error.ts';
import {
  type HelpAttachment,
  type Ticket,
  useAnswerTicketMutation,
  useNotificationsConfigQuery,
} from '../../api/help.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { AttachmentPicker } from '../get-help/attachment-picker.tsx';

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

const SAVE_FAILED = 'Failed to save response';

/**
 * The admin's response to a ticket (admin-ticket-detail.tsx): text, images, Insert Link, notification
 * options, and the Close (the ticket) and Send Response buttons.
 */
export function AdminTicketResponse({
  ticket,
  onSent,
  closing,
  onCloseTicket,
}: {
  ticket: Ticket;
  /** After the response was saved: the panel is cleared, the form and its options go with it. */
  onSent(): void;
  /** Whether a status change is under way (Close waits for it). */
  closing: boolean;
  onCloseTicket(): void;
}) {
  const toast = useToast();
  const config = useNotificationsConfigQuery();
  const smtpEnabled = config.data?.smtpEnabled === true;
  const answer = useAnswerTicketMutation();
  const [text, setText] = useState(ticket.adminResponse?.text ?? '');
  const [attachments, setAttachments] = useState<HelpAttachment[]>(ticket.adminResponse?.attachments ?? []);
  const [notify, setNotify] = useState(true);
  const [notifyTitle, setNotifyTitle] = useState('');
  const [notifyMessage, setNotifyMessage] = useState('');
  const [notifyEmail, setNotifyEmail] = useState(false);
  const [textError, setTextError] = useState<string | null>(null);
  const [linkOpen, setLinkOpen] = useState(false);

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
          onSent();
        },
        onError: (error) => toast.error(errorMessage(error, SAVE_FAILED)),
      },
    );
  };

  return (
    <>
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
                <Checkbox checked={notifyEmail} onChange={(event) => setNotifyEmail(event.target.checked)} />
              }
              label="Also send via email"
            />
          )}
        </Box>
        <Stack direction="row" sx={{ gap: 2, justifyContent: 'flex-end' }}>
          <Button onClick={onCloseTicket} disabled={closing}>
            Close
          </Button>
          <Button type="submit" variant="contained" disabled={answer.isPending}>
            {answer.isPending ? 'Saving...' : 'Send Response'}
          </Button>
        </Stack>
      </Stack>
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
    </>
  );
}
