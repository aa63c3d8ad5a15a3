import MarkEmailReadIcon from '@mui/icons-material/MarkEmailRead';
import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { type FormEvent, useState } from 'react';
import { requestErrorMessage } from '../../api/api-error.ts';
import { useRequestPasswordResetMutation } from '../../api/password-reset.queries.ts';
import { type FieldErrors, useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { BotCheckField } from '../bot-check/bot-check-field.tsx';
import { useBotCheck } from '../bot-check/use-bot-check.ts';

interface ForgotValues {
  email: string;
}

const INITIAL: ForgotValues = { email: '' };

/** Forgot password (the server wants something@something). */
function validateForgot({ email }: ForgotValues): FieldErrors<ForgotValues> {
  const value = email.trim();
  if (value.length === 0) return { email: 'Email is required' };
  if (!/^\S+@\S+$/.test(value)) return { email: 'Invalid email address' };
  return {};
}

function ForgotPasswordForm({ onClose, onSent }: { onClose(): void; onSent(email: string): void }) {
  const request = useRequestPasswordResetMutation();
  const botCheck = useBotCheck();
  const toast = useToast();
  const form = useForm(INITIAL, validateForgot);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    const botCheckDone = botCheck.ready();
    form.handleSubmit((values) => {
      if (!botCheckDone) return;
      const email = values.email.trim();
      request.mutate(
        { email, ...botCheck.payload() },
        {
          onSuccess: () => onSent(email),
          onError: (error) => {
            botCheck.reset();
            toast.error(
              requestErrorMessage(
                error,
                'Failed to send reset email',
                'Failed to send reset email. Please try again.',
              ),
            );
          },
        },
      );
    })(event);
  };

  return (
    <Box component="form" noValidate onSubmit={submit}>
      <DialogTitle id="forgot-password-title">Forgot your password?</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2.5 }}>
          Enter the e-mail address of your account and we will send you a link to choose a new password.
        </DialogContentText>
        <Stack spacing={2}>
          <TextField {...form.field('email')} label="Email" type="email" autoComplete="email" autoFocus />
          <BotCheckField check={botCheck} />
        </Stack>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2.5 }}>
        <Button onClick={onClose} color="inherit">
          Cancel
        </Button>
        <Button
          type="submit"
          variant="contained"
          disabled={form.values.email.trim() === ''}
          loading={request.isPending}
        >
          Send Reset Link
        </Button>
      </DialogActions>
    </Box>
  );
}

function CheckYourEmail({ email, onClose }: { email: string; onClose(): void }) {
  return (
    <>
      <DialogContent sx={{ textAlign: 'center', pt: 4 }}>
        <MarkEmailReadIcon color="success" sx={{ fontSize: 56, mb: 1 }} />
        <Typography id="forgot-password-title" variant="h5" component="h2" gutterBottom>
          Check Your Email
        </Typography>
        <DialogContentText>
          If an account exists for <strong>{email}</strong>, we have sent it a link to reset the password. The
          link works once and expires in 1 hour.
        </DialogContentText>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2.5, justifyContent: 'center' }}>
        <Button variant="contained" onClick={onClose}>
          Back to Sign In
        </Button>
      </DialogActions>
    </>
  );
}

/**
 * The 'forgot password' dialog of the sign-in page: an e-mail address and the
 * bot check, then a 'Check Your Email' confirmation. The server answers the same whether or not the
 * address has an account.
 */
export function ForgotPasswordDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const [sentTo, setSentTo] = useState<string | null>(null);
  return (
    <Dialog
      open={open}
      onClose={onClose}
      fullWidth
      maxWidth="xs"
      aria-labelledby="forgot-password-title"
      slotProps={{ transition: { onExited: () => setSentTo(null) } }}
    >
      {sentTo === null ? (
        <ForgotPasswordForm onClose={onClose} onSent={setSentTo} />
      ) : (
        <CheckYourEmail email={sentTo} onClose={onClose} />
      )}
    </Dialog>
  );
}
