import {
  Button,
  FormControl,
  FormControlLabel,
  FormHelperText,
  FormLabel,
  Grid,
  Link,
  Radio,
  RadioGroup,
  Stack,
  TextField,
} from '@mui/material';
import { type FormEvent, useEffect } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import { useRegisterMutation } from '../../api/auth.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { PasswordField } from '../../components/password-field.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { BotCheckField } from '../bot-check/bot-check-field.tsx';
import { useBotCheck } from '../bot-check/use-bot-check.ts';
import { useSession } from '../session/use-session.ts';
import { AuthCard } from './auth-card.tsx';
import { PasswordStrengthMeter } from './password-strength-meter.tsx';
import { referralToSend, storeReferral } from './referral-code.ts';
import { EMPTY_REGISTER_VALUES, type RegisterValues, validateRegister } from './register-validation.ts';

/**
 * Registration. A `ref` query parameter is remembered (upper-cased) and sent;
 * on success the route table sends the new user to /dashboard.
 */
export function RegisterPage() {
  const registration = useRegisterMutation();
  const { signIn } = useSession();
  const toast = useToast();
  const form = useForm(EMPTY_REGISTER_VALUES, validateRegister);
  const [searchParams] = useSearchParams();
  const refParam = searchParams.get('ref');
  const setupToken = searchParams.get('setupToken')?.trim();
  const botCheck = useBotCheck();

  useEffect(() => {
    if (refParam?.trim()) storeReferral(refParam.trim());
  }, [refParam]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    const botCheckDone = botCheck.ready();
    form.handleSubmit((values) => send(values, botCheckDone))(event);
  };

  function send(values: RegisterValues, botCheckDone: boolean) {
    const { accountType } = values;
    if (accountType === '' || !botCheckDone) return;
    const ref = referralToSend(refParam);
    registration.mutate(
      {
        accountType,
        firstName: values.firstName.trim(),
        lastName: values.lastName.trim(),
        ...(accountType === 'company' ? { companyName: values.companyName.trim() } : {}),
        username: values.username.trim(),
        email: values.email.trim(),
        password: values.password,
        ...(ref ? { ref } : {}),
        // The one-time token the server printed while no admin exists (…/register?setupToken=…).
        ...(setupToken ? { setupToken } : {}),
        ...botCheck.payload(),
      },
      {
        onSuccess: async (result) => {
          await signIn(result);
          toast.success('Registration successful!');
        },
        onError: (error) => {
          botCheck.reset();
          form.showServerErrors(fieldErrorsOf(error));
          toast.error(errorMessage(error, 'Registration failed'));
        },
      },
    );
  }

  const accountTypeError = form.errorOf('accountType');

  return (
    <AuthCard
      title="Create your account"
      subtitle="Start with a free 1-hour trial. No credit card required."
      maxWidth={560}
      footer={
        <>
          Already have an account?{' '}
          <Link component={RouterLink} to="/login">
            Sign in
          </Link>
        </>
      }
    >
      <Stack component="form" noValidate onSubmit={submit} spacing={2.5}>
        <FormControl error={accountTypeError !== undefined}>
          <FormLabel id="account-type-label">Account type</FormLabel>
          <RadioGroup
            row
            aria-labelledby="account-type-label"
            name="accountType"
            value={form.values.accountType}
            onChange={(event) =>
              form.setValue('accountType', event.target.value as RegisterValues['accountType'])
            }
          >
            <FormControlLabel value="individual" control={<Radio />} label="Individual" />
            <FormControlLabel value="company" control={<Radio />} label="Company" />
          </RadioGroup>
          {accountTypeError && <FormHelperText>{accountTypeError}</FormHelperText>}
        </FormControl>
        <Grid container spacing={2}>
          <Grid size={{ xs: 12, sm: 6 }}>
            <TextField {...form.field('firstName')} label="First Name" autoComplete="given-name" />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <TextField {...form.field('lastName')} label="Last Name" autoComplete="family-name" />
          </Grid>
        </Grid>
        {form.values.accountType === 'company' && (
          <TextField {...form.field('companyName')} label="Company Name" autoComplete="organization" />
        )}
        <TextField {...form.field('username')} label="Username" autoComplete="username" />
        <TextField {...form.field('email')} label="Email" type="email" autoComplete="email" />
        <Stack spacing={1.5}>
          <PasswordField {...form.field('password')} label="Password" autoComplete="new-password" />
          <PasswordStrengthMeter password={form.values.password} />
        </Stack>
        <PasswordField
          {...form.field('confirmPassword')}
          label="Confirm Password"
          autoComplete="new-password"
        />
        <BotCheckField check={botCheck} />
        <Button type="submit" variant="contained" size="large" loading={registration.isPending}>
          Create Account
        </Button>
      </Stack>
    </AuthCard>
  );
}
