import type { ApiClient, Schemas } from '@berth/openapi';
import AccountBalanceWalletIcon from '@mui/icons-material/AccountBalanceWallet';
import { Alert, Button, Stack, Typography } from '@mui/material';
import { useMutation } from '@tanstack/react-query';
import { errorMessage, unwrap } from '../../api/api-error.ts';
import type { Purchase } from '../../api/payments.queries.ts';
import { useApiClient } from '../../api/use-api-client.ts';
import { type Eip1193Provider, MetaMaskError, metaMaskFailedText, payWithMetaMask } from './metamask.ts';

type MetaMaskSettings = Schemas['PaymentSettings']['methods']['metamask'];
type MetaMaskOrder = Schemas['MetaMaskOrder'];

/** The wallet the browser extension injects, if any. */
const injectedEthereum = (): Eip1193Provider | undefined =>
  (globalThis as { ethereum?: Eip1193Provider }).ethereum;

export const METAMASK_SUBMITTED_TEXT =
  'Transaction sent. Support validates MetaMask payments by hand; your plan becomes active once it is approved.';

/**
 * The MetaMask payment: the server opens an order and names the
 * receiver, network and order reference; the wallet sends the zero-value transaction; its hash goes back
 * to the order, which support approves. Throws with the text to show.
 */
async function startMetaMaskPayment({
  client,
  purchase,
  ethereum = injectedEthereum(),
}: {
  client: ApiClient;
  purchase: Purchase;
  ethereum?: Eip1193Provider | undefined;
}): Promise<MetaMaskOrder> {
  const order = await unwrap(client.POST('/api/payments/metamask/orders', { body: purchase }));
  const payment = await payWithMetaMask({
    ethereum,
    receiver: order.receiverAddress,
    chainId: order.chainId,
    orderRef: order.orderRef,
  });
  return unwrap(
    client.POST('/api/payments/metamask/orders/{id}/transaction', {
      params: { path: { id: order.id } },
      body: payment,
    }),
  );
}

const failureText = (error: unknown) =>
  error instanceof MetaMaskError
    ? error.message
    : errorMessage(error, metaMaskFailedText('please try again'));

/** The MetaMask step of the payment method modal. */
export function MetaMaskPayment({
  purchase,
  settings,
  onBack,
}: {
  purchase: Purchase;
  settings: MetaMaskSettings;
  onBack: () => void;
}) {
  const client = useApiClient();
  const pay = useMutation<MetaMaskOrder, Error, void>({
    mutationFn: () => startMetaMaskPayment({ client, purchase }),
  });
  return (
    <Stack spacing={2} component="section" aria-labelledby="metamask-payment-title">
      <Typography id="metamask-payment-title" variant="h6" component="h3">
        Pay with MetaMask
      </Typography>
      <Typography color="text.secondary">
        MetaMask asks you to confirm a zero-value transaction to our address
        {settings.receiverAddress ? ` (${settings.receiverAddress})` : ''}. It carries your order reference;
        support validates the payment afterwards and activates your plan.
      </Typography>
      {pay.isError && <Alert severity="error">{failureText(pay.error)}</Alert>}
      {pay.isSuccess ? (
        <Alert severity="success">{METAMASK_SUBMITTED_TEXT}</Alert>
      ) : (
        <Stack direction="row" spacing={1.5}>
          <Button
            variant="contained"
            startIcon={<AccountBalanceWalletIcon />}
            loading={pay.isPending}
            onClick={() => pay.mutate()}
          >
            Pay with MetaMask
          </Button>
          <Button color="inherit" onClick={onBack} disabled={pay.isPending}>
            Other methods
          </Button>
        </Stack>
      )}
    </Stack>
  );
}
