import {
  Alert,
  Button,
  Checkbox,
  FormControlLabel,
  FormHelperText,
  Link,
  Stack,
  TextField,
} from '@mui/material';
import { type FormEvent, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { useAffiliateRegisterMutation } from '../../api/affiliates.queries.ts';
import { errorMessage } from '../../api/api-error.ts';
import { useRegisterMutation } from '../../api/auth.queries.ts';
import { PasswordField } from '../../components/password-field.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { AuthCard } from '../auth/auth-card.tsx';
import { MIN_PASSWORD_SCORE, passwordScore } from '../auth/password-strength.ts';
import { PasswordStrengthMeter } from '../auth/password-strength-meter.tsx';
import { referralToSend } from '../auth/referral-code.ts';
import { BotCheckField } from '../bot-check/bot-check-field.tsx';
import { useBotCheck } from '../bot-check/use-bot-check.ts';
import { useSession } from '../session/use-session.ts';
import { EMPTY_PAYOUT, PayoutFields, type PayoutValues, payoutBody } from './payout-fields.tsx';

/** The full name's first word is the first name, the rest the last (a dash if none). */
export function splitFullName(fullName: string): { firstName: string; lastName: string } {
  const [first = '', ...rest] = fullName.trim().split(/\s+/);
  return { firstName: first, lastName: rest.length > 0 ? rest.join(' ') : '-' };
}

/** The first name plus a timestamp, lower-cased (only the characters usernames allow). */
export function generatedUsername(firstName: string, now = Date.now()): string {
  const base =
    firstName
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9_-]/g, '')
      .slice(0, 16) || 'affiliate';
  return `${base}${now}`.slice(0, 30);
}

interface Errors {
  fullName?: string;
  email?: string;
  password?: string;
  website?: string;
  agree?: string;
}

function validate(v: {
  fullName: string;
  email: string;
  password: string;
  website: string;
  agree: boolean;
}): Errors {
  const e: Errors = {};
  if (!v.fullName.trim()) e.fullName = 'Full name is required';
  if (!/^\S+@\S+$/.test(v.email.trim())) e.email = 'Invalid email address';
  if (passwordScore(v.password) < MIN_PASSWORD_SCORE)
    e.password = 'Password must meet all strength requirements';
  if (v.website.trim() && !/^https?:\/\/\S+\.\S+/i.test(v.website.trim()))
    e.website = 'Website must be a URL';
  if (!v.agree) e.agree = 'You must agree to the terms & conditions';
  return e;
}

/**
 * Affiliate register: an account and the affiliate profile in one step; on success
 * the dashboard, keeping `ref`.
 */
export function AffiliateRegisterPage() {
  const [params] = useSearchParams();
  const ref = params.get('ref');
  const toast = useToast();
  const { signIn } = useSession();
  const account = useRegisterMutation();
  const join = useAffiliateRegisterMutation();
  const botCheck = useBotCheck();
  const [fullName, setFullName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [website, setWebsite] = useState('');
  const [agree, setAgree] = useState(false);
  const [payout, setPayout] = useState<PayoutValues>(EMPTY_PAYOUT);
  const [submitted, setSubmitted] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const errors = submitted ? validate({ fullName, email, password, website, agree }) : {};

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    const botCheckDone = botCheck.ready();
    if (Object.keys(validate({ fullName, email, password, website, agree })).length > 0 || !botCheckDone)
      return;
    setFailure(null);
    const { firstName, lastName } = splitFullName(fullName);
    const referral = referralToSend(ref);
    let session: Awaited<ReturnType<typeof account.mutateAsync>>;
    try {
      session = await account.mutateAsync({
        accountType: 'individual',
        username: generatedUsername(firstName),
        email: email.trim(),
        password,
        firstName,
        lastName,
        ...(referral ? { ref: referral } : {}),
        ...botCheck.payload(),
      });
    } catch (error) {
      botCheck.reset();
      const message = errorMessage(error, 'Registration failed');
      setFailure(message);
      toast.error(message);
      return;
    }
    // The profile is created before signing in: once signed in, the route table leaves this page
    // for /affiliate/dashboard (keeping `ref`), which must find the profile.
    try {
      await join.mutateAsync({
        token: session.token,
        body: { ...payoutBody(payout, email.trim()), ...(website.trim() ? { website: website.trim() } : {}) },
      });
      toast.success('Welcome to the affiliate program!');
    } catch (error) {
      // The account exists: the dashboard's 404 sends the user to the apply page to finish joining.
      toast.error(errorMessage(error, 'Failed to register'));
    }
    await signIn(session);
  };

  return (
    <AuthCard
      title="Join the Affiliate Program"
      subtitle="Earn 20% of the first subscription payment of every customer you refer."
      maxWidth={600}
      footer={
        <>
          Already an affiliate?{' '}
          <Link
            component={RouterLink}
            to={ref ? `/affiliate/login?ref=${encodeURIComponent(ref)}` : '/affiliate/login'}
          >
            Sign in
          </Link>
        </>
      }
    >
      <Stack component="form" noValidate onSubmit={submit} spacing={2.5}>
        {failure && <Alert severity="error">{failure}</Alert>}
        <TextField
          label="Full Name"
          value={fullName}
          onChange={(e) => setFullName(e.target.value)}
          error={errors.fullName !== undefined}
          helperText={errors.fullName}
          autoComplete="name"
        />
        <TextField
          label="Email"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={errors.email !== undefined}
          helperText={errors.email}
          autoComplete="email"
        />
        <Stack spacing={1.5}>
          <PasswordField
            label="Password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={errors.password !== undefined}
            helperText={errors.password}
            autoComplete="new-password"
          />
          <PasswordStrengthMeter password={password} />
        </Stack>
        <TextField
          label="Website or social link (optional)"
          value={website}
          onChange={(e) => setWebsite(e.target.value)}
          error={errors.website !== undefined}
          helperText={errors.website}
          autoComplete="url"
        />
        <PayoutFields values={payout} onChange={setPayout} />
        <div>
          <FormControlLabel
            control={<Checkbox checked={agree} onChange={(e) => setAgree(e.target.checked)} />}
            label={
              <>
                I agree to the{' '}
                <Link component={RouterLink} to="/affiliate/terms">
                  affiliate terms
                </Link>
              </>
            }
          />
          {errors.agree && <FormHelperText error>{errors.agree}</FormHelperText>}
        </div>
        <BotCheckField check={botCheck} />
        <Button type="submit" variant="contained" size="large" loading={account.isPending || join.isPending}>
          Create Affiliate Account
        </Button>
      </Stack>
    </AuthCard>
  );
}
