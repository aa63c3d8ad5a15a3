import SaveIcon from '@mui/icons-material/Save';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Divider,
  FormControlLabel,
  Grid,
  InputAdornment,
  MenuItem,
  Stack,
  Switch,
  TextField,
  Typography,
} from '@mui/material';
import { type FormEvent, useState } from 'react';
import {
  type AdminPaymentSettings,
  type AdminPaymentSettingsUpdate,
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
  type ChainId,
  CURRENCIES,
  CURRENCY_SYMBOL,
  type Currency,
  METAMASK_SETTINGS_NOTICE,
  METHODS,
  type MethodInfo,
  type MethodKey,
  type MethodStatus,
  methodStatus,
  NETWORKS,
  PRICE_FIELDS,
  type PriceKey,
  priceError,
  receiverAddressError,
} from './admin.ts';

interface FormValues {
  currency: Currency;
  prices: Record<PriceKey, string>;
  backupDays: Record<BackupDaysKey, string>;
  enabled: Record<MethodKey, boolean>;
  receiverAddress: string;
  chainId: ChainId;
}

const valuesOf = (settings: AdminPaymentSettings): FormValues => ({
  currency: settings.currency,
  prices: {
    starter: String(settings.prices.starter),
    pro: String(settings.prices.pro),
    addonInstance: String(settings.prices.addonInstance),
  },
  backupDays: {
    starter: String(settings.backupDays.starter),
    pro: String(settings.backupDays.pro),
  },
  enabled: {
    stripe: settings.methods.stripe.enabled,
    paypalBusiness: settings.methods.paypalBusiness.enabled,
    paypalStandard: settings.methods.paypalStandard.enabled,
    metamask: settings.methods.metamask.enabled,
  },
  receiverAddress: settings.methods.metamask.receiverAddress ?? '',
  chainId: settings.methods.metamask.chainId ?? '0xaa36a7',
});

const updateOf = (values: FormValues): AdminPaymentSettingsUpdate => ({
  currency: values.currency,
  prices: {
    starter: Number(values.prices.starter),
    pro: Number(values.prices.pro),
    addonInstance: Number(values.prices.addonInstance),
  },
  backupDays: { starter: Number(values.backupDays.starter), pro: Number(values.backupDays.pro) },
  methods: {
    stripe: { enabled: values.enabled.stripe },
    paypalBusiness: { enabled: values.enabled.paypalBusiness },
    paypalStandard: { enabled: values.enabled.paypalStandard },
    metamask: {
      enabled: values.enabled.metamask,
      receiverAddress: values.receiverAddress.trim() || null,
      chainId: values.chainId,
    },
  },
});

const STATUS_CHIP: Record<MethodStatus, { label: string; color: 'success' | 'warning' | 'default' }> = {
  available: { label: 'Available', color: 'success' },
  needsKeys: { label: 'Needs keys', color: 'warning' },
  off: { label: 'Off', color: 'default' },
};

/** Why a method cannot be offered yet: the server settings it lacks (or, for MetaMask, the receiver). */
function needsText(method: MethodInfo): string {
  if (method.envVars.length === 0) return `Set a receiver address below to offer ${method.label}.`;
  const names = method.envVars.join(', ').replace(/, ([^,]*)$/, ' and $1');
  return `Set ${names} on the server to offer ${method.label}.`;
}

function MethodRow({
  method,
  settings,
  checked,
  onChange,
}: {
  method: MethodInfo;
  settings: AdminPaymentSettings;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const status = methodStatus(settings.methods[method.key]);
  const chip = STATUS_CHIP[status];
  const descriptionId = `payment-method-${method.key}-description`;
  return (
    <Stack
      direction={{ xs: 'column', sm: 'row' }}
      sx={{
        gap: { xs: 0.5, sm: 2 },
        alignItems: { sm: 'flex-start' },
        justifyContent: 'space-between',
        py: 1.5,
      }}
    >
      <Box sx={{ minWidth: 0 }}>
        <FormControlLabel
          control={
            <Switch
              checked={checked}
              onChange={(event) => onChange(event.target.checked)}
              slotProps={{ input: { 'aria-describedby': descriptionId } }}
            />
          }
          label={<Typography sx={{ fontWeight: 600 }}>{method.label}</Typography>}
        />
        <Box id={descriptionId} sx={{ pl: { xs: 0, sm: 6 } }}>
          <Typography variant="body2" color="text.secondary">
            {method.description}
          </Typography>
          {status === 'needsKeys' && (
            <Typography variant="body2" color="warning.main" sx={{ mt: 0.5 }}>
              {needsText(method)}
            </Typography>
          )}
        </Box>
      </Box>
      <Chip
        label={chip.label}
        color={chip.color}
        size="small"
        variant={status === 'off' ? 'outlined' : 'filled'}
        aria-label={`${method.label}: ${chip.label}`}
        sx={{ alignSelf: { xs: 'flex-start', sm: 'center' }, flexShrink: 0 }}
      />
    </Stack>
  );
}

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

  const symbol = CURRENCY_SYMBOL[values.currency];
  const metamaskOn = values.enabled.metamask;

  return (
    <Box component="form" noValidate onSubmit={submit} aria-label="Payment settings">
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: 5 }}>
          <Card component="section" aria-labelledby="admin-prices-title" sx={{ height: '100%' }}>
            <CardContent sx={{ p: 3 }}>
              <Typography id="admin-prices-title" variant="h6" component="h3">
                Currency and prices
              </Typography>
              <Typography variant="body2" color="text.secondary" sx={{ mb: 2.5 }}>
                Monthly prices; the yearly prices follow with their discounts.
              </Typography>
              <Stack spacing={2.5}>
                <TextField
                  select
                  label="Currency"
                  value={values.currency}
                  onChange={(event) => setValues({ ...values, currency: event.target.value as Currency })}
                >
                  {CURRENCIES.map((currency) => (
                    <MenuItem key={currency} value={currency}>
                      {currency} ({CURRENCY_SYMBOL[currency]})
                    </MenuItem>
                  ))}
                </TextField>
                {PRICE_FIELDS.map(({ key, label }) => {
                  const error = showErrors ? priceErrors[key] : null;
                  return (
                    <TextField
                      key={key}
                      label={label}
                      type="number"
                      value={values.prices[key]}
                      onChange={(event) =>
                        setValues({ ...values, prices: { ...values.prices, [key]: event.target.value } })
                      }
                      error={error !== null}
                      helperText={error}
                      slotProps={{
                        htmlInput: { min: 0.01, max: 100_000, step: 0.01, inputMode: 'decimal' },
                        input: { startAdornment: <InputAdornment position="start">{symbol}</InputAdornment> },
                      }}
                    />
                  );
                })}
                <Typography variant="subtitle2" component="h4" sx={{ pt: 1 }}>
                  Backups
                </Typography>
                {BACKUP_DAYS_FIELDS.map(({ key, label }) => {
                  const error = showErrors ? daysErrors[key] : null;
                  return (
                    <TextField
                      key={key}
                      label={label}
                      type="number"
                      value={values.backupDays[key]}
                      onChange={(event) =>
                        setValues({
                          ...values,
                          backupDays: { ...values.backupDays, [key]: event.target.value },
                        })
                      }
                      error={error !== null}
                      helperText={error ?? 'Older backups are removed; each instance keeps its newest.'}
                      slotProps={{ htmlInput: { min: 1, max: 365, step: 1, inputMode: 'numeric' } }}
                    />
                  );
                })}
              </Stack>
            </CardContent>
          </Card>
        </Grid>
        <Grid size={{ xs: 12, md: 7 }}>
          <Card component="section" aria-labelledby="admin-methods-title" sx={{ height: '100%' }}>
            <CardContent sx={{ p: 3 }}>
              <Typography id="admin-methods-title" variant="h6" component="h3">
                Payment methods
              </Typography>
              <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
                Users can pay with a method when it is switched on and the server has what it needs.
              </Typography>
              <Stack divider={<Divider flexItem />}>
                {METHODS.map((method) => (
                  <MethodRow
                    key={method.key}
                    method={method}
                    settings={settings}
                    checked={values.enabled[method.key]}
                    onChange={(checked) =>
                      setValues({ ...values, enabled: { ...values.enabled, [method.key]: checked } })
                    }
                  />
                ))}
              </Stack>
              <Box
                component="fieldset"
                sx={{
                  mt: 1,
                  p: 2,
                  minWidth: 0,
                  border: 1,
                  borderColor: 'divider',
                  borderRadius: 1,
                  bgcolor: 'action.hover',
                }}
              >
                <Typography component="legend" variant="subtitle2" sx={{ px: 0.5 }}>
                  MetaMask receiver
                </Typography>
                <Stack spacing={2}>
                  <TextField
                    label="Receiver address"
                    value={values.receiverAddress}
                    onChange={(event) => setValues({ ...values, receiverAddress: event.target.value })}
                    placeholder="0x…"
                    required={metamaskOn}
                    error={(showErrors || values.receiverAddress.length >= 42) && receiverError !== null}
                    helperText={
                      ((showErrors || values.receiverAddress.length >= 42) && receiverError) ||
                      'The wallet that receives the transactions.'
                    }
                    slotProps={{
                      htmlInput: { spellCheck: false, autoComplete: 'off', sx: { fontFamily: 'monospace' } },
                    }}
                  />
                  <TextField
                    select
                    label="Network"
                    value={values.chainId}
                    onChange={(event) => setValues({ ...values, chainId: event.target.value as ChainId })}
                  >
                    {NETWORKS.map((network) => (
                      <MenuItem key={network.chainId} value={network.chainId}>
                        {network.label} · {network.chainId}
                      </MenuItem>
                    ))}
                  </TextField>
                  <Alert severity="info" variant="outlined">
                    {METAMASK_SETTINGS_NOTICE}
                  </Alert>
                </Stack>
              </Box>
            </CardContent>
          </Card>
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
