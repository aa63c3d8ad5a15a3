import SaveIcon from '@mui/icons-material/Save';
import { Box, Button, Grid, Stack, Typography } from '@mui/material';
import { type FormEvent, useState } from 'react';
import {
  type AdminPaymentSettings,
  useAdminPaymentSettingsQuery,
  useUpdateAdminPaymentSettingsMutation,
} from '../../api/admin.queries.ts';
import { errorMessage } from '../../api/api-error.ts';
import { LoadState } from '../../components/load-state.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import {
  BACKUP_DAYS_FIELDS,
  type BackupDaysKey,
  backupDaysError,
  PRICE_FIELDS,
  type PriceKey,
  priceError,
  receiverAddressError,
} from './admin.ts';
import { MethodsCard } from './payment-methods-card.tsx';
import { PricesCard } from './payment-prices-card.tsx';
import { updateOf, valuesOf } from './payment-settings-values.ts';

function SettingsForm({ settings }: { settings: AdminPaymentSettings }) {
  const toast = useToast();
  const save = useUpdateAdminPaymentSettingsMutation();
  const [values, setValues] = useState(() => valuesOf(settings));
  const [showErrors, setShowErrors] = useState(false);

  const receiverError = receiverAddressError(values.receiverAddress);
  const priceErrors = Object.fromEntries(
    PRICE_FIELDS.map(({ key }) => [key, priceError(values.prices[key])]),
  ) as Record<PriceKey, string | null>;
  const daysErrors = Object.fromEntries(
    BACKUP_DAYS_FIELDS.map(({ key }) => [key, backupDaysError(values.backupDays[key])]),
  ) as Record<BackupDaysKey, string | null>;
  const invalid =
    receiverError !== null ||
    [...Object.values(priceErrors), ...Object.values(daysErrors)].some((error) => error !== null);
  const changed = JSON.stringify(values) !== JSON.stringify(valuesOf(settings));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setShowErrors(true);
    if (invalid) return;
    save.mutate(updateOf(values), {
      onSuccess: (saved) => {
        setValues(valuesOf(saved));
        setShowErrors(false);
        toast.success('Payment settings saved');
      },
      onError: (error) => toast.error(errorMessage(error, 'Failed to save the payment settings')),
    });
  };

  return (
    <Box component="form" noValidate onSubmit={submit} aria-label="Payment settings">
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: 5 }}>
          <PricesCard
            values={values}
            onChange={setValues}
            priceErrors={showErrors ? priceErrors : null}
            daysErrors={showErrors ? daysErrors : null}
          />
        </Grid>
        <Grid size={{ xs: 12, md: 7 }}>
          <MethodsCard
            settings={settings}
            values={values}
            onChange={setValues}
            showErrors={showErrors}
            receiverError={receiverError}
          />
        </Grid>
      </Grid>
      <Stack direction="row" sx={{ mt: 3, gap: 2, alignItems: 'center', justifyContent: 'flex-end' }}>
        {changed && (
          <Typography variant="body2" color="text.secondary" role="status">
            Unsaved changes
          </Typography>
        )}
        <Button
          type="button"
          color="inherit"
          disabled={!changed || save.isPending}
          onClick={() => {
            setValues(valuesOf(settings));
            setShowErrors(false);
          }}
        >
          Discard
        </Button>
        <Button type="submit" variant="contained" startIcon={<SaveIcon />} loading={save.isPending}>
          Save
        </Button>
      </Stack>
    </Box>
  );
}

/**
 * The payment settings of the Payments tab: currency, prices, the days each plan keeps backups, one
 * switch per method, MetaMask receiver.
 */
export function PaymentSettingsForm() {
  const query = useAdminPaymentSettingsQuery();
  if (!query.isSuccess)
    return (
      <LoadState
        query={query}
        loading="Loading payment settings..."
        failed={errorMessage(query.error, 'Failed to load the payment settings')}
      />
    );
  return <SettingsForm settings={query.data} />;
}
