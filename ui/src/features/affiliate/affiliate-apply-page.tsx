import {
  Alert,
  Button,
  Card,
  CardContent,
  Checkbox,
  CircularProgress,
  Container,
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
  Typography,
} from '@mui/material';
import { type FormEvent, useEffect, useState } from 'react';
import { Navigate, Link as RouterLink, useNavigate } from 'react-router';
import { useAffiliateRegisterMutation } from '../../api/affiliates.queries.ts';
import { ApiRequestError, errorMessage } from '../../api/api-error.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { useCurrentUser } from '../session/use-session.ts';

/** The redirect after joining. */
const REDIRECT_MS = 2000;

interface ApplyValues {
  firstName: string;
  lastName: string;
  email: string;
  website: string;
  paymentMethod: 'paypal' | 'bank';
  paypalEmail: string;
  bankAccount: string;
  agreeTerms: boolean;
}

type ApplyErrors = Partial<Record<keyof ApplyValues, string>>;

/** Affiliate apply. */
export function validateApply(v: ApplyValues): ApplyErrors {
  const e: ApplyErrors = {};
  if (!v.firstName.trim()) e.firstName = 'First name is required';
  if (!v.lastName.trim()) e.lastName = 'Last name is required';
  if (!/^\S+@\S+\.\S+$/.test(v.email.trim())) e.email = 'Please enter a valid email';
  if (v.website.trim() && !/^https?:\/\/\S+\.\S+/i.test(v.website.trim()))
    e.website = 'Website must be a URL';
  if (v.paymentMethod === 'paypal' && !v.paypalEmail.trim()) e.paypalEmail = 'PayPal email is required';
  if (v.paymentMethod === 'bank' && !v.bankAccount.trim())
    e.bankAccount = 'Bank account information is required';
  if (!v.agreeTerms) e.agreeTerms = 'You must agree to the terms and conditions';
  return e;
}

/** The server's messages of a failed join: field messages joined by lines, else its message. */
function joinFailure(error: unknown): string {
  if (!(error instanceof ApiRequestError)) return 'An error occurred. Please try again.';
  const fields = error.body?.details?.fieldErrors;
  if (fields && typeof fields === 'object') {
    const lines = Object.values(fields as Record<string, unknown>).flatMap((m) =>
      Array.isArray(m) ? m : [m],
    );
    if (lines.length > 0) return lines.join('\n');
  }
  return errorMessage(error, 'Failed to register as affiliate');
}

/**
 * Affiliate apply: a signed-in user joins with a PayPal or bank payout; processing,
 * a welcome, then the dashboard after 2 seconds. Affiliates already are sent to the dashboard.
 */
export function AffiliateApplyPage() {
  const user = useCurrentUser();
  const toast = useToast();
  const navigate = useNavigate();
  const join = useAffiliateRegisterMutation();
  const [values, setValues] = useState<ApplyValues>({
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    website: '',
    paymentMethod: 'paypal',
    paypalEmail: user.email,
    bankAccount: '',
    agreeTerms: false,
  });
  const [submitted, setSubmitted] = useState(false);
  const [joined, setJoined] = useState(false);
  const errors = submitted ? validateApply(values) : {};

  useEffect(() => {
    if (!joined) return;
    const timer = setTimeout(() => navigate('/affiliate/dashboard', { replace: true }), REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [joined, navigate]);

  // An affiliate arriving here goes to the dashboard; the profile this page's own join refreshes does not
  // skip the welcome.
  if (user.affiliateStatus === 'active' && join.isIdle && !joined)
    return <Navigate to="/affiliate/dashboard" replace />;

  const set = <K extends keyof ApplyValues>(name: K, value: ApplyValues[K]) =>
    setValues((v) => ({ ...v, [name]: value }));
  const text = (name: 'firstName' | 'lastName' | 'email' | 'website' | 'paypalEmail' | 'bankAccount') => ({
    value: values[name],
    onChange: (event: { target: { value: string } }) => set(name, event.target.value),
    error: errors[name] !== undefined,
    helperText: errors[name],
    fullWidth: true,
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    const found = validateApply(values);
    const first = Object.values(found)[0];
    if (first) {
      toast.error(first);
      return;
    }
    join.mutate(
      {
        body: {
          paymentMethod: values.paymentMethod,
          ...(values.website.trim() ? { website: values.website.trim() } : {}),
          ...(values.paymentMethod === 'paypal'
            ? { paypalEmail: values.paypalEmail.trim() }
            : { bankDetails: values.bankAccount.trim() }),
        },
      },
      {
        onSuccess: () => setJoined(true),
        onError: (error) => toast.error(joinFailure(error)),
      },
    );
  };

  if (joined) {
    return (
      <Container maxWidth="sm" sx={{ py: 8 }}>
        <Alert severity="success" role="status">
          <Typography variant="h6" component="h1">
            Welcome to the Affiliate Program!
          </Typography>
          Taking you to your{' '}
          <Link component={RouterLink} to="/affiliate/dashboard">
            affiliate dashboard
          </Link>
          …
        </Alert>
      </Container>
    );
  }

  return (
    <Container maxWidth="sm" sx={{ py: { xs: 4, md: 6 } }}>
      <Typography variant="h4" component="h1" sx={{ mb: 1 }}>
        Become an Affiliate
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        Earn 20% of the first subscription payment of every customer you refer. Already an affiliate?{' '}
        <Link component={RouterLink} to="/affiliate/dashboard">
          Go to your dashboard
        </Link>
      </Typography>
      <Card>
        <CardContent sx={{ p: 3 }}>
          <Stack component="form" noValidate onSubmit={submit} spacing={2.5}>
            <Grid container spacing={2}>
              <Grid size={{ xs: 12, sm: 6 }}>
                <TextField {...text('firstName')} label="First Name" autoComplete="given-name" />
              </Grid>
              <Grid size={{ xs: 12, sm: 6 }}>
                <TextField {...text('lastName')} label="Last Name" autoComplete="family-name" />
              </Grid>
            </Grid>
            <TextField {...text('email')} label="Email" type="email" autoComplete="email" />
            <TextField {...text('website')} label="Website (optional)" autoComplete="url" />
            <FormControl>
              <FormLabel id="apply-method-label">Payment method</FormLabel>
              <RadioGroup
                row
                aria-labelledby="apply-method-label"
                value={values.paymentMethod}
                onChange={(e) => set('paymentMethod', e.target.value as ApplyValues['paymentMethod'])}
              >
                <FormControlLabel value="paypal" control={<Radio />} label="PayPal" />
                <FormControlLabel value="bank" control={<Radio />} label="Bank transfer" />
              </RadioGroup>
            </FormControl>
            {values.paymentMethod === 'paypal' ? (
              <TextField {...text('paypalEmail')} label="PayPal Email" type="email" />
            ) : (
              <TextField
                {...text('bankAccount')}
                label="Bank account details"
                multiline
                minRows={3}
                placeholder="Account holder, bank, account number or IBAN, SWIFT"
              />
            )}
            <div>
              <FormControlLabel
                control={
                  <Checkbox
                    checked={values.agreeTerms}
                    onChange={(e) => set('agreeTerms', e.target.checked)}
                  />
                }
                label={
                  <>
                    I agree to the{' '}
                    <Link component={RouterLink} to="/affiliate/terms">
                      affiliate terms
                    </Link>
                  </>
                }
              />
              {errors.agreeTerms && <FormHelperText error>{errors.agreeTerms}</FormHelperText>}
            </div>
            <Button
              type="submit"
              variant="contained"
              size="large"
              disabled={join.isPending}
              startIcon={
                join.isPending ? <CircularProgress size={18} color="inherit" aria-hidden /> : undefined
              }
            >
              {join.isPending ? 'Processing…' : 'Join the Program'}
            </Button>
          </Stack>
        </CardContent>
      </Card>
    </Container>
  );
}
