import { Button, Link, Stack, TextField } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { errorMessage } from '../../api/api-error.ts';
import { useLoginMutation } from '../../api/auth.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { PasswordField } from '../../components/password-field.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { useSession } from '../session/use-session.ts';
import { AuthCard } from './auth-card.tsx';
import { type LoginValues, validateLogin } from './login-validation.ts';

const INITIAL: LoginValues = { emailOrUsername: '', password: '' };

/**
 * Sign-in (spec customer-area §2.5). On success the session holds the user and the signed-out guard
 * sends them on (to the page they came from, else /dashboard).
 */
export function LoginPage() {
  const login = useLoginMutation();
  const { signIn } = useSession();
  const toast = useToast();
  const form = useForm(INITIAL, validateLogin);

  const submit = form.handleSubmit((values) => {
    login.mutate(
      { emailOrUsername: values.emailOrUsername.trim(), password: values.password },
      {
        onSuccess: async (result) => {
          await signIn(result);
          toast.success('Login successful!');
        },
        onError: (error) => toast.error(errorMessage(error, 'Login failed')),
      },
    );
  });

  return (
    <AuthCard
      title="Welcome back"
      subtitle="Sign in to manage your instances."
      footer={
        <>
          Don't have an account?{' '}
          <Link component={RouterLink} to="/register" underline="hover">
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
        <PasswordField {...form.field('password')} label="Password" autoComplete="current-password" />
        <Button type="submit" variant="contained" size="large" loading={login.isPending}>
          Sign In
        </Button>
      </Stack>
    </AuthCard>
  );
}
