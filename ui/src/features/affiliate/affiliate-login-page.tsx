import { Button, Link, Stack, TextField } from '@mui/material';
import type { FormEvent } from 'react';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/api-error.ts';
import { useLoginMutation } from '../../api/auth.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { PasswordField } from '../../components/password-field.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { AuthCard } from '../auth/auth-card.tsx';
import { type LoginValues, validateLogin } from '../auth/login-validation.ts';
import { BotCheckField } from '../bot-check/bot-check-field.tsx';
import { useBotCheck } from '../bot-check/use-bot-check.ts';
import { useSession } from '../session/use-session.ts';

const INITIAL: LoginValues = { emailOrUsername: '', password: '' };

/** `/affiliate/dashboard`, keeping `ref` when the visitor came with one. */
function dashboardWithRef(ref: string | null): string {
  return ref ? `/affiliate/dashboard?ref=${encodeURIComponent(ref)}` : '/affiliate/dashboard';
}

/**
 * Affiliate login: e-mail or username (trimmed), password and the bot check; on
 * success the affiliate dashboard, keeping `ref`. Signed out, /affiliate and /affiliate/dashboard show it.
 */
export function AffiliateLoginPage() {
  const login = useLoginMutation();
  const { signIn } = useSession();
  const toast = useToast();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const ref = params.get('ref');
  const form = useForm(INITIAL, validateLogin);
  const botCheck = useBotCheck();

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
            navigate(dashboardWithRef(ref), { replace: true });
          },
          onError: (error) => {
            botCheck.reset();
            toast.error(errorMessage(error, 'Invalid credentials'));
          },
        },
      );
    })(event);
  };

  return (
    <AuthCard
      title="Affiliate Login"
      subtitle="Sign in to see your referrals, earnings and payouts."
      footer={
        <>
          Not an affiliate yet?{' '}
          <Link
            component={RouterLink}
            to={ref ? `/affiliate/register?ref=${encodeURIComponent(ref)}` : '/affiliate/register'}
          >
            Join the program
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
        <BotCheckField check={botCheck} />
        <Button type="submit" variant="contained" size="large" loading={login.isPending}>
          Sign In
        </Button>
      </Stack>
    </AuthCard>
  );
}
