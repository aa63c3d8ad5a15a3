import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import {
  Button,
  Card,
  CardContent,
  Container,
  Grid,
  IconButton,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import { type FormEvent, useEffect, useState } from 'react';
import { Navigate } from 'react-router';
import {
  type AffiliateProfile,
  useAffiliateProfileQuery,
  useUpdatePaymentDetailsMutation,
  useUpdateReferralMutation,
} from '../../api/affiliates.queries.ts';
import { ApiRequestError, errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import { LoadState } from '../../components/load-state.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { EMPTY_PAYOUT, PayoutFields, type PayoutValues, payoutBody } from './payout-fields.tsx';

function payoutValuesOf(p: AffiliateProfile): PayoutValues {
  return {
    ...EMPTY_PAYOUT,
    paymentMethod: p.paymentMethod,
    paypalEmail: p.paypalEmail ?? '',
    bankAccountName: p.bankDetails?.accountName ?? '',
    bankAccountNumber: p.bankDetails?.accountNumber ?? p.bankDetails?.details ?? '',
    bankName: p.bankDetails?.bankName ?? '',
    swiftCode: p.bankDetails?.swiftCode ?? '',
    iban: p.bankDetails?.iban ?? '',
    cryptoAddress: p.cryptoWallet?.address ?? '',
    cryptoNetwork: p.cryptoWallet?.network ?? '',
  };
}

/** Toasts each field message of a failed save apart, else the fallback. */
function useFailureToasts() {
  const toast = useToast();
  return (error: unknown, fallback: string) => {
    const fields = Object.values(fieldErrorsOf(error));
    if (fields.length > 0) for (const message of fields) toast.error(message);
    else toast.error(errorMessage(error, fallback));
  };
}

function ReferralSettings({ profile }: { profile: AffiliateProfile }) {
  const save = useUpdateReferralMutation();
  const toast = useToast();
  const failed = useFailureToasts();
  const [code, setCode] = useState(profile.referralCode);
  const [name, setName] = useState(profile.referralName ?? '');
  const [number, setNumber] = useState(profile.referralNumber ?? '');
  const [website, setWebsite] = useState(profile.website ?? '');

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // Trimmed and upper-cased; blank fields are not sent.
    const t = (s: string) => s.trim() || undefined;
    save.mutate(
      {
        referralCode: t(code)?.toUpperCase(),
        referralName: t(name),
        referralNumber: t(number),
        website: t(website),
      },
      {
        onSuccess: (result) => {
          setCode(result.referralCode);
          toast.success('Referral settings saved');
        },
        onError: (error) => failed(error, 'Failed to save referral settings'),
      },
    );
  };

  return (
    <Card component="section" aria-labelledby="referral-settings-title">
      <CardContent sx={{ p: 3 }}>
        <Typography id="referral-settings-title" variant="h6" component="h2" sx={{ mb: 2 }}>
          Referral Settings
        </Typography>
        <Stack component="form" noValidate onSubmit={submit} spacing={2}>
          <TextField
            label="Referral code"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            helperText="3 to 32 letters, digits, hyphens or underscores; your old links stop working when it changes."
          />
          <Grid container spacing={2}>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextField
                label="Public name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                fullWidth
              />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextField
                label="Public number"
                value={number}
                onChange={(e) => setNumber(e.target.value)}
                fullWidth
              />
            </Grid>
          </Grid>
          <TextField label="Website" value={website} onChange={(e) => setWebsite(e.target.value)} />
          <div>
            <Button type="submit" variant="contained" loading={save.isPending}>
              Save Referral Settings
            </Button>
          </div>
        </Stack>
      </CardContent>
    </Card>
  );
}

function PayoutSettings({ profile }: { profile: AffiliateProfile }) {
  const save = useUpdatePaymentDetailsMutation();
  const toast = useToast();
  const failed = useFailureToasts();
  const [values, setValues] = useState(() => payoutValuesOf(profile));
  const [revealed, setRevealed] = useState(false);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    save.mutate(payoutBody(values), {
      onSuccess: () => toast.success('Payout settings saved'),
      onError: (error) => failed(error, 'Failed to save payout settings'),
    });
  };

  return (
    <Card component="section" aria-labelledby="payout-settings-title">
      <CardContent sx={{ p: 3 }}>
        <Stack direction="row" sx={{ mb: 2, alignItems: 'center' }}>
          <Typography id="payout-settings-title" variant="h6" component="h2" sx={{ flexGrow: 1 }}>
            Payout Method
          </Typography>
          <Tooltip title={revealed ? 'Hide details' : 'Show details'}>
            <IconButton
              onClick={() => setRevealed((r) => !r)}
              aria-label={revealed ? 'Hide payout details' : 'Show payout details'}
              aria-pressed={revealed}
            >
              {revealed ? <VisibilityOffIcon /> : <VisibilityIcon />}
            </IconButton>
          </Tooltip>
        </Stack>
        <Stack component="form" noValidate onSubmit={submit} spacing={2}>
          <PayoutFields values={values} onChange={setValues} conceal={!revealed} />
          <Typography variant="body2" color="text.secondary">
            Payout details are stored encrypted and shown only to you and to the administrators who pay you.
          </Typography>
          <div>
            <Button type="submit" variant="contained" loading={save.isPending}>
              Save Payout Settings
            </Button>
          </div>
        </Stack>
      </CardContent>
    </Card>
  );
}

/** Affiliate settings: referral settings and the payout method. */
export function AffiliateSettingsPage() {
  const profile = useAffiliateProfileQuery();
  const toast = useToast();
  const status = profile.error instanceof ApiRequestError ? profile.error.status : undefined;

  useEffect(() => {
    if (profile.isError && status !== 404 && status !== 401) toast.error('Failed to load affiliate settings');
  }, [profile.isError, status, toast]);

  if (status === 404) return <Navigate to="/affiliate/apply" replace />;
  if (status === 401) return <Navigate to="/affiliate/login" replace />;

  return (
    <Container maxWidth="md" sx={{ py: { xs: 4, md: 6 } }}>
      <Typography variant="h4" component="h1" sx={{ mb: 3 }}>
        Affiliate Settings
      </Typography>
      {!profile.data ? (
        <LoadState query={profile} loading="Loading settings…" failed="Failed to load affiliate settings" />
      ) : (
        <Stack spacing={3}>
          <ReferralSettings profile={profile.data} />
          <PayoutSettings profile={profile.data} />
        </Stack>
      )}
    </Container>
  );
}
