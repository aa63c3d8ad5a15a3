import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import {
  Box,
  Button,
  Checkbox,
  FormControlLabel,
  Grid,
  IconButton,
  InputAdornment,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { type FormEvent, useMemo, useState } from 'react';
import { useLocation } from 'react-router';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import { type HelpAttachment, type Ticket, useSubmitTicketMutation } from '../../api/help.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { type ContactValues, isContactCategory, validateContact } from '../help/contact-validation.ts';
import { MessageFields } from '../help/message-fields.tsx';
import { useCurrentUser } from '../session/use-session.ts';
import { AttachmentPicker } from './attachment-picker.tsx';

const TICKET_FAILURE = 'Failed to submit request';
const TICKET_SENT = "Your request has been received. We'll get back to you shortly.";

/**
 * The support form of /get-help: name and e-mail from the
 * account (blurred until shown), category, subject, message with a counter, up to 5 images, and the
 * consent to attach a snapshot of the account for support.
 */
export function TicketForm({ onSent }: { onSent: (ticket: Ticket) => void }) {
  const user = useCurrentUser();
  const submit = useSubmitTicketMutation();
  const toast = useToast();
  const { pathname } = useLocation();
  const initial = useMemo<ContactValues>(
    () => ({
      name: `${user.firstName ?? ''} ${user.lastName ?? ''}`.trim(),
      email: user.email,
      subject: '',
      message: '',
      category: 'general',
    }),
    [user],
  );
  const form = useForm<ContactValues>(initial, validateContact);
  const [attachments, setAttachments] = useState<HelpAttachment[]>([]);
  const [shareContext, setShareContext] = useState(true);
  const [showIdentity, setShowIdentity] = useState(false);

  const send = (event: FormEvent<HTMLFormElement>) =>
    form.handleSubmit((values) => {
      if (!isContactCategory(values.category)) return;
      submit.mutate(
        {
          name: values.name.trim(),
          email: values.email.trim(),
          category: values.category,
          subject: values.subject.trim(),
          message: values.message.trim(),
          path: pathname,
          attachments,
          shareContext,
        },
        {
          onSuccess: ({ item }) => {
            form.reset();
            setAttachments([]);
            toast.success(TICKET_SENT);
            onSent(item);
          },
          onError: (error) => {
            form.showServerErrors(fieldErrorsOf(error));
            toast.error(errorMessage(error, TICKET_FAILURE));
          },
        },
      );
    })(event);

  const blur = showIdentity ? undefined : { filter: 'blur(5px)' };
  const visibilityToggle = (
    <InputAdornment position="end">
      <IconButton
        aria-label={showIdentity ? 'Hide name and email' : 'Show name and email'}
        aria-pressed={showIdentity}
        onClick={() => setShowIdentity((shown) => !shown)}
        edge="end"
      >
        {showIdentity ? <VisibilityOffIcon /> : <VisibilityIcon />}
      </IconButton>
    </InputAdornment>
  );

  return (
    <Stack component="form" noValidate onSubmit={send} spacing={2.5} aria-label="Send a support message">
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, sm: 6 }}>
          <TextField
            {...form.field('name')}
            label="Name"
            autoComplete="name"
            slotProps={{ htmlInput: { style: blur }, input: { endAdornment: visibilityToggle } }}
          />
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          <TextField
            {...form.field('email')}
            label="Email"
            type="email"
            autoComplete="email"
            slotProps={{ htmlInput: { style: blur } }}
          />
        </Grid>
      </Grid>
      <MessageFields form={form} />
      <AttachmentPicker value={attachments} onChange={setAttachments} disabled={submit.isPending} />
      <Box>
        <FormControlLabel
          control={
            <Checkbox checked={shareContext} onChange={(event) => setShareContext(event.target.checked)} />
          }
          label="Share my plan and instance status with support"
        />
        <Typography variant="body2" color="text.secondary" sx={{ ml: 4 }}>
          Your plan, and for each instance its type, status, last error and SSL state as they are now, so
          support does not have to ask.
        </Typography>
      </Box>
      <Box>
        <Button type="submit" variant="contained" size="large" loading={submit.isPending}>
          Send Message
        </Button>
      </Box>
    </Stack>
  );
}
