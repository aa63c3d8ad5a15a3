import MarkEmailReadIcon from '@mui/icons-material/MarkEmailRead';
import { Box, Button, Grid, Stack, TextField, Typography } from '@mui/material';
import { type FormEvent, useState } from 'react';
import { useLocation } from 'react-router';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import { useContactMutation } from '../../api/contact.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { BotCheckField } from '../bot-check/bot-check-field.tsx';
import { useBotCheck } from '../bot-check/use-bot-check.ts';
import {
  type ContactValues,
  EMPTY_CONTACT,
  isContactCategory,
  validateContact,
} from './contact-validation.ts';
import { MessageFields } from './message-fields.tsx';

const CONTACT_SUCCESS = "Message sent successfully! We'll get back to you within 24 hours.";
const CONTACT_FAILURE = 'Failed to send message. Please try again.';

function Sent({ onAnother }: { onAnother(): void }) {
  return (
    <Box role="status" sx={{ textAlign: 'center', py: 4 }}>
      <MarkEmailReadIcon color="success" sx={{ fontSize: 56, mb: 1 }} />
      <Typography variant="h6" component="p" gutterBottom>
        Thank you, your message is on its way.
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        We will answer by e-mail, usually within 24 hours.
      </Typography>
      <Button variant="outlined" onClick={onAnother}>
        Send another message
      </Button>
    </Box>
  );
}

/** The help page's contact form: unsent, then sent. */
export function ContactForm() {
  const contact = useContactMutation();
  const botCheck = useBotCheck();
  const toast = useToast();
  const { pathname } = useLocation();
  const form = useForm<ContactValues>(EMPTY_CONTACT, validateContact);
  const [sent, setSent] = useState(false);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    const botCheckDone = botCheck.ready();
    form.handleSubmit((values) => {
      if (!botCheckDone || !isContactCategory(values.category)) return;
      contact.mutate(
        {
          name: values.name.trim(),
          email: values.email.trim(),
          subject: values.subject.trim(),
          message: values.message.trim(),
          category: values.category,
          path: pathname,
          ...botCheck.payload(),
        },
        {
          onSuccess: () => {
            toast.success(CONTACT_SUCCESS);
            form.reset();
            botCheck.reset();
            setSent(true);
          },
          onError: (error) => {
            botCheck.reset();
            form.showServerErrors(fieldErrorsOf(error));
            toast.error(errorMessage(error, CONTACT_FAILURE));
          },
        },
      );
    })(event);
  };

  if (sent) return <Sent onAnother={() => setSent(false)} />;

  return (
    <Stack component="form" noValidate onSubmit={submit} spacing={2.5} aria-label="Contact support">
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, sm: 6 }}>
          <TextField {...form.field('name')} label="Name" autoComplete="name" />
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          <TextField {...form.field('email')} label="Email" type="email" autoComplete="email" />
        </Grid>
      </Grid>
      <MessageFields form={form} />
      <BotCheckField check={botCheck} />
      <Box>
        <Button type="submit" variant="contained" size="large" loading={contact.isPending}>
          Send Message
        </Button>
      </Box>
    </Stack>
  );
}
