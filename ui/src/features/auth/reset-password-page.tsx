import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlineOutlined';
import { Box, Button, Card, CardContent, CircularProgress, Link, Stack, Typography } from '@mui/material';
import { type ReactNode, useEffect, useState } from 'react';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';
import { requestErrorMessage } from '../../api/api-error.ts';
import { useResetPasswordMutation, useVerifyResetTokenQuery } from '../../api/password-reset.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { PasswordField } from '../../components/password-field.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { AuthCard } from './auth-card.tsx';
import { PasswordStrengthMeter } from './password-strength-meter.tsx';
import { type ResetPasswordValues, validateResetPassword } from './reset-password-validation.ts';

/** The success screen leads to /login after 3 s. */
export const RESET_SUCCESS_REDIRECT_MS = 3_000;

export const NO_TOKEN_MESSAGE = 'Invalid reset link. Please request a new password reset.';

const INITIAL: ResetPasswordValues = { password: '', confirmPassword: '' };

function StateCard({ icon, title, children }: { icon: ReactNode; title: string; children: ReactNode }) {
  return (
    <Box sx={{ display: 'flex', justifyContent: 'center', px: 2, py: { xs: 4, sm: 8 } }}>
      <Card sx={{ width: '100%', maxWidth: 440 }}>
        <CardContent sx={{ p: 4, textAlign: 'center', '&:last-child': { pb: 4 } }}>
          {icon}
          <Typography variant="h4" component="h1" sx={{ mt: 1, mb: 1.5 }}>
            {title}
          </Typography>
          {children}
        </CardContent>
      </Card>
    </Box>
  );
}

function Verifying() {
  return (
    <StateCard icon={<CircularProgress aria-hidden />} title="Verifying your link">
      <Typography color="text.secondary" role="status">
        Checking your reset link...
      </Typography>
    </StateCard>
  );
}

function InvalidLink({ message }: { message: string }) {
  return (
    <StateCard icon={<ErrorOutlineIcon color="error" sx={{ fontSize: 56 }} />} title="Reset link not valid">
      <Typography color="text.secondary" role="alert" sx={{ mb: 3 }}>
        {message}
      </Typography>
      <Typography color="text.secondary" variant="body2" sx={{ mb: 3 }}>
        Reset links work once and expire after 1 hour. Use "Forgot password?" on the sign-in page to get a new
        one.
      </Typography>
      <Button component={RouterLink} to="/login" variant="contained">
        Back to Sign In
      </Button>
    </StateCard>
  );
}

function ResetDone() {
  const navigate = useNavigate();
  useEffect(() => {
    const id = setTimeout(() => navigate('/login', { replace: true }), RESET_SUCCESS_REDIRECT_MS);
    return () => clearTimeout(id);
  }, [navigate]);
  return (
    <StateCard icon={<CheckCircleIcon color="success" sx={{ fontSize: 56 }} />} title="Password reset">
      <Typography color="text.secondary" role="status" sx={{ mb: 3 }}>
        Your password has been changed. Redirecting you to sign in...
      </Typography>
      <Button component={RouterLink} to="/login" variant="contained" replace>
        Sign In Now
      </Button>
    </StateCard>
  );
}

function NewPasswordForm({ token, onDone }: { token: string; onDone(): void }) {
  const reset = useResetPasswordMutation();
  const toast = useToast();
  const form = useForm(INITIAL, validateResetPassword);

  const submit = form.handleSubmit((values) => {
    reset.mutate(
      { token, password: values.password },
      {
        onSuccess: onDone,
        onError: (error) =>
          toast.error(
            requestErrorMessage(
              error,
              'Failed to reset password',
              'Failed to reset password. Please try again.',
            ),
          ),
      },
    );
  });

  return (
    <AuthCard
      title="Choose a new password"
      subtitle="Enter a new password for your account."
      footer={
        <Link component={RouterLink} to="/login">
          Back to Sign In
        </Link>
      }
    >
      <Stack component="form" noValidate onSubmit={submit} spacing={2.5}>
        <PasswordField
          {...form.field('password')}
          label="New Password"
          autoComplete="new-password"
          autoFocus
        />
        <PasswordStrengthMeter password={form.values.password} />
        <PasswordField
          {...form.field('confirmPassword')}
          label="Confirm New Password"
          autoComplete="new-password"
        />
        <Button type="submit" variant="contained" size="large" loading={reset.isPending}>
          Reset Password
        </Button>
      </Stack>
    </AuthCard>
  );
}

/**
 * The page of the e-mailed reset link, /reset-password?token=…:
 * verifying, then the new-password form or the invalid-link page; after the reset, a success screen
 * that leads to /login after 3 s.
 */
export function ResetPasswordPage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token')?.trim() || null;
  const verify = useVerifyResetTokenQuery(token);
  const [done, setDone] = useState(false);

  if (done) return <ResetDone />;
  if (token === null) return <InvalidLink message={NO_TOKEN_MESSAGE} />;
  if (verify.isPending) return <Verifying />;
  if (verify.isError)
    return (
      <InvalidLink
        message={requestErrorMessage(
          verify.error,
          'Invalid or expired reset token',
          'Failed to verify reset token',
        )}
      />
    );
  return <NewPasswordForm token={token} onDone={() => setDone(true)} />;
}
