import { EMAIL_PATTERN } from '@berth/openapi/rules';
import {
  Button,
  Checkbox,
  CircularProgress,
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
import { type FormEvent, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import type { AffiliateRegisterRequest } from '../../api/affiliates.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';

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
  if (!EMAIL_PATTERN.test(v.email.trim())) e.email = 'Please enter a valid email';
  if (v.website.trim() && !/^https?:\/\/\S+\.\S+/i.test(v.website.trim()))
    e.website = 'Website must be a URL';
  if (v.paymentMethod === 'paypal' && !v.paypalEmail.trim()) e.paypalEmail = 'PayPal email is required';
  if (v.paymentMethod === 'bank' && !v.bankAccount.trim())
    e.bankAccount = 'Bank account information is required';
  if (!v.agreeTerms) e.agreeTerms = 'You must agree to the terms and conditions';
  return e;
}

/**
 * The affiliate apply form (affiliate-apply-page.tsx): name and e-mail (filled from the account),
 * website, PayPal or bank payout, the terms; checked on submit (the first problem also as a toast), then
 * handed to `onJoin`.
 */
export function AffiliateApplyForm({
  user,
  pending,
  onJoin,
}: {
  user: { firstName: string; lastName: string; email: string };
  /** Whether the join is under way. */
  pending: boolean;
  onJoin: (body: AffiliateRegisterRequest) => void;
}) {
  const toast = useToast();
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
  const errors = submitted ? validateApply(values) : {};

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
    onJoin({
      paymentMethod: values.paymentMethod,
      ...(values.website.trim() ? { website: values.website.trim() } : {}),
      ...(values.paymentMethod === 'paypal'
        ? { paypalEmail: values.paypalEmail.trim() }
        : { bankDetails: values.bankAccount.trim() }),
    });
  };

  return (
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
            <Checkbox checked={values.agreeTerms} onChange={(e) => set('agreeTerms', e.target.checked)} />
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
        disabled={pending}
        startIcon={pending ? <CircularProgress size={18} color="inherit" aria-hidden /> : undefined}
      >
        {pending ? 'Processing…' : 'Join the Program'}
      </Button>
    </Stack>
  );
}
