import {
  FormControl,
  FormControlLabel,
  FormLabel,
  Grid,
  Radio,
  RadioGroup,
  Stack,
  TextField,
} from '@mui/material';
import type { AffiliatePaymentDetailsRequest } from '../../api/affiliates.queries.ts';

export type PayoutMethod = 'paypal' | 'bank' | 'crypto';

/** The payout method and its details as a form holds them. */
export interface PayoutValues {
  paymentMethod: PayoutMethod;
  paypalEmail: string;
  bankAccountName: string;
  bankAccountNumber: string;
  bankName: string;
  swiftCode: string;
  iban: string;
  cryptoAddress: string;
  cryptoNetwork: string;
}

export const EMPTY_PAYOUT: PayoutValues = {
  paymentMethod: 'paypal',
  paypalEmail: '',
  bankAccountName: '',
  bankAccountNumber: '',
  bankName: '',
  swiftCode: '',
  iban: '',
  cryptoAddress: '',
  cryptoNetwork: '',
};

/** The request body of the method's details; blank fields are not sent. */
export function payoutBody(v: PayoutValues, fallbackEmail?: string): AffiliatePaymentDetailsRequest {
  const t = (s: string) => s.trim() || undefined;
  switch (v.paymentMethod) {
    case 'paypal':
      return { paymentMethod: 'paypal', paypalEmail: t(v.paypalEmail) ?? fallbackEmail };
    case 'bank':
      return {
        paymentMethod: 'bank',
        bankDetails: {
          accountName: t(v.bankAccountName),
          accountNumber: t(v.bankAccountNumber),
          bankName: t(v.bankName),
          swiftCode: t(v.swiftCode),
          iban: t(v.iban),
        },
      };
    case 'crypto':
      return {
        paymentMethod: 'crypto',
        cryptoWallet: { address: t(v.cryptoAddress), network: t(v.cryptoNetwork) },
      };
  }
}

/**
 * Payout method radios and the fields of the chosen one. `conceal` blurs the values until the eye
 * toggle of the settings page reveals them.
 */
export function PayoutFields({
  values,
  onChange,
  methods = ['paypal', 'bank', 'crypto'],
  conceal = false,
  errors = {},
}: {
  values: PayoutValues;
  onChange: (next: PayoutValues) => void;
  methods?: readonly PayoutMethod[];
  conceal?: boolean;
  errors?: Partial<Record<keyof PayoutValues, string>>;
}) {
  const set = (name: keyof PayoutValues) => ({
    value: values[name],
    onChange: (event: { target: { value: string } }) => onChange({ ...values, [name]: event.target.value }),
    error: errors[name] !== undefined,
    helperText: errors[name],
    fullWidth: true,
    sx: conceal ? { '& input': { filter: 'blur(5px)' } } : undefined,
  });
  const labels: Record<PayoutMethod, string> = { paypal: 'PayPal', bank: 'Bank transfer', crypto: 'Crypto' };
  return (
    <Stack spacing={2}>
      <FormControl>
        <FormLabel id="payout-method-label">Payment method</FormLabel>
        <RadioGroup
          row
          aria-labelledby="payout-method-label"
          name="paymentMethod"
          value={values.paymentMethod}
          onChange={(event) => onChange({ ...values, paymentMethod: event.target.value as PayoutMethod })}
        >
          {methods.map((m) => (
            <FormControlLabel key={m} value={m} control={<Radio />} label={labels[m]} />
          ))}
        </RadioGroup>
      </FormControl>
      {values.paymentMethod === 'paypal' && (
        <TextField {...set('paypalEmail')} label="PayPal Email" type="email" />
      )}
      {values.paymentMethod === 'bank' && (
        <Grid container spacing={2}>
          <Grid size={{ xs: 12, sm: 6 }}>
            <TextField {...set('bankAccountName')} label="Account Holder Name" />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <TextField {...set('bankName')} label="Bank Name" />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <TextField {...set('bankAccountNumber')} label="Account Number" />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <TextField {...set('swiftCode')} label="SWIFT / BIC" />
          </Grid>
          <Grid size={12}>
            <TextField {...set('iban')} label="IBAN" />
          </Grid>
        </Grid>
      )}
      {values.paymentMethod === 'crypto' && (
        <Grid container spacing={2}>
          <Grid size={{ xs: 12, sm: 8 }}>
            <TextField {...set('cryptoAddress')} label="Wallet Address" />
          </Grid>
          <Grid size={{ xs: 12, sm: 4 }}>
            <TextField {...set('cryptoNetwork')} label="Network" placeholder="e.g. Ethereum" />
          </Grid>
        </Grid>
      )}
    </Stack>
  );
}
