import { Card, CardContent, InputAdornment, MenuItem, Stack, TextField, Typography } from '@mui/material';
import {
  BACKUP_DAYS_FIELDS,
  type BackupDaysKey,
  CURRENCIES,
  CURRENCY_SYMBOL,
  type Currency,
  PRICE_FIELDS,
  type PriceKey,
} from './admin.ts';
import type { PaymentFormValues } from './payment-settings-values.ts';

/**
 * "Currency and prices" of the payment settings: the currency, the monthly prices and the days each
 * plan keeps backups. The errors are null until the form was submitted once.
 */
export function PricesCard({
  values,
  onChange,
  priceErrors,
  daysErrors,
}: {
  values: PaymentFormValues;
  onChange(values: PaymentFormValues): void;
  priceErrors: Record<PriceKey, string | null> | null;
  daysErrors: Record<BackupDaysKey, string | null> | null;
}) {
  const symbol = CURRENCY_SYMBOL[values.currency];
  return (
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
            onChange={(event) => onChange({ ...values, currency: event.target.value as Currency })}
          >
            {CURRENCIES.map((currency) => (
              <MenuItem key={currency} value={currency}>
                {currency} ({CURRENCY_SYMBOL[currency]})
              </MenuItem>
            ))}
          </TextField>
          {PRICE_FIELDS.map(({ key, label }) => {
            const error = priceErrors?.[key] ?? null;
            return (
              <TextField
                key={key}
                label={label}
                type="number"
                value={values.prices[key]}
                onChange={(event) =>
                  onChange({ ...values, prices: { ...values.prices, [key]: event.target.value } })
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
            const error = daysErrors?.[key] ?? null;
            return (
              <TextField
                key={key}
                label={label}
                type="number"
                value={values.backupDays[key]}
                onChange={(event) =>
                  onChange({
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
  );
}
