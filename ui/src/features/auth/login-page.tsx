import { Box, Button, Link, Stack, TextField } from '@mui/material';
import { type FormEvent, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { errorMessage } from '../../api/api-error.ts';
import { useLoginMutation } from '../../api/auth.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { PasswordField } from '../../components/password-field.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { BotCheckField } from '../bot-check/bot-check-field.tsx';
import { useBotCheck } from '../bot-check/use-bot-check.ts';
import { useSession } from '../session/use-session.ts';
import { ServerLine } from '../settings/server-line.tsx';
import { AuthCard } from './auth-card.tsx';
import { ForgotPasswordDialog } from './forgot-password-dialog.tsx';
import { type LoginValues, validateLogin } from './login-validation.ts';

const INITIAL: LoginValues = { emailOrUsername: '', password: '' };

/**
 * Sign-in: e-mail or username, password and the bot check; a 'forgot
 * password' dialog. On success the session holds the user and the route table sends them on (to the
 * page they came from, else /dashboard).
 */
export function LoginPage() {
  const login = useLoginMutation();
  const { signIn } = useSession();
  const toast = useToast();
  const form = useForm(INITIAL, validateLogin);
  const botCheck = useBotCheck();
  const [forgotOpen, setForgotOpen] = useState(false);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    const botCheckDone = botCheck.ready();
    form.handleSubmit((values) => {
      if (!botCheckDone) return;
      login.mutate(
        { emailOrUsername: values.emailOrUsername.trim(), password: values.password, ...botCheck.payload() },
        {
          onSuccess: async (result) => {
            await signIn(result);
            toast.success('Login successful!');
          },
          onError: (error) => {
            botCheck.reset();
            toast.error(errorMessage(error, 'Login failed'));
          },
        },
      );
    })(event);
  };

  return (
    <AuthCard
      title="Welcome back"
      subtitle="Sign in to manage your instances."
      footer={
        <>
          Don't have an account?{' '}
          <Link component={RouterLink} to="/register">
            Create one
          </Link>
        </>
      }
    >
      <Stack component="form" noValidate onSubmit={submit} spacing={2.5}>
        <TextField
          {...form.field('emailOrUsername')}
          label="Email or Username"
          autoComplete="username"
          autoFocus
        />
        <Box>
          <PasswordField {...form.field('password')} label="Password" autoComplete="current-password" />
          <Box sx={{ textAlign: 'right', mt: 0.75 }}>
            <Link
              component="button"
              type="button"
              variant="body2"
              underline="hover"
              onClick={() => setForgotOpen(true)}
            >
              Forgot password?
            </Link>
          </Box>
        </Box>
        <BotCheckField check={botCheck} />
        <Button type="submit" variant="contained" size="large" loading={login.isPending}>
          Sign In
        </Button>
      </Stack>
      <ServerLine />
      <ForgotPasswordDialog open={forgotOpen} onClose={() => setForgotOpen(false)} />
    </AuthCard>
  );
}
