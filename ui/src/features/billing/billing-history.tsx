import type { Schemas } from '@berth/openapi';
import DownloadIcon from '@mui/icons-material/Download';
import {
  Alert,
  Button,
  Card,
  CardContent,
  Chip,
  CircularProgress,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useBillingHistoryQuery } from '../../api/payments.queries.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import { NO_BILLING_HISTORY_TEXT } from './billing.ts';

type Invoice = Schemas['Invoice'];

const PROVIDER_NAMES: Record<Invoice['provider'], string> = {
  stripe: 'Stripe',
  paypal_business: 'PayPal Business',
  paypal_standard: 'PayPal',
  metamask: 'MetaMask',
};

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

const CURRENCY_SYMBOLS: Record<string, string> = { USD: '$', EUR: '€', GBP: '£' };

/** '$19.99' for the currencies with a symbol, else '19.99 CHF'. */
function formatInvoiceAmount(amount: number, currency: string): string {
  const symbol = CURRENCY_SYMBOLS[currency.toUpperCase()];
  return symbol ? `${symbol}${amount.toFixed(2)}` : `${amount.toFixed(2)} ${currency}`;
}

function InvoiceRow({ invoice }: { invoice: Invoice }) {
  const platform = usePlatform();
  const { downloadUrl } = invoice;
  // A partial refund shows under the amount; a full one shows as the 'refunded' status.
  const partlyRefunded = invoice.refundedAmount > 0 && invoice.status !== 'refunded';
  return (
    <TableRow hover>
      <TableCell>
        {formatInvoiceAmount(invoice.amount, invoice.currency)}
        {partlyRefunded && (
          <Typography component="span" variant="caption" color="text.secondary" sx={{ display: 'block' }}>
            Refunded {formatInvoiceAmount(invoice.refundedAmount, invoice.currency)}
          </Typography>
        )}
      </TableCell>
      <TableCell>{invoice.currency}</TableCell>
      <TableCell>{invoice.description}</TableCell>
      <TableCell>{DATE.format(new Date(invoice.date))}</TableCell>
      <TableCell>
        <Chip size="small" label={invoice.status} color={invoice.status === 'paid' ? 'success' : 'default'} />
      </TableCell>
      <TableCell>{PROVIDER_NAMES[invoice.provider]}</TableCell>
      <TableCell align="right">
        <Button
          size="small"
          startIcon={<DownloadIcon />}
          disabled={!downloadUrl}
          onClick={() => downloadUrl && platform.openExternal(downloadUrl)}
          aria-label={`Download invoice ${invoice.description}`}
        >
          Download
        </Button>
      </TableCell>
    </TableRow>
  );
}

/** The invoices of the user. */
export function BillingHistory() {
  const history = useBillingHistoryQuery();
  const invoices = history.data?.invoices ?? [];
  return (
    <Card component="section" aria-labelledby="billing-history-title">
      <CardContent sx={{ p: 3 }}>
        <Typography id="billing-history-title" variant="h6" component="h2" sx={{ mb: 2 }}>
          Billing History
        </Typography>
        {history.isPending && <CircularProgress size={24} aria-label="Loading billing history" />}
        {history.isError && <Alert severity="error">We could not load your billing history.</Alert>}
        {history.isSuccess && invoices.length === 0 && (
          <Typography color="text.secondary">{NO_BILLING_HISTORY_TEXT}</Typography>
        )}
        {invoices.length > 0 && (
          <TableContainer>
            <Table size="small" aria-label="Billing history">
              <TableHead>
                <TableRow>
                  <TableCell>Amount</TableCell>
                  <TableCell>Currency</TableCell>
                  <TableCell>Description</TableCell>
                  <TableCell>Date</TableCell>
                  <TableCell>Status</TableCell>
                  <TableCell>Provider</TableCell>
                  <TableCell align="right">Invoice</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {invoices.map((invoice) => (
                  <InvoiceRow key={invoice.id} invoice={invoice} />
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </CardContent>
    </Card>
  );
}
