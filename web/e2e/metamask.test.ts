// MetaMask end to end in a real browser: an admin turns MetaMask on, a trial user pays for Pro with a
// wallet (a stand-in for the MetaMask extension, answering the EIP-1193 calls the extension would), the
// transaction lands on a local chain the server checks over JSON-RPC, and the admin approves it in the
// Admin Panel; the user's plan is then active.
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeEthRpc, startFakeEthRpc } from '../../server/test/fake-eth-rpc.ts';
import { api, type BrowserSuite, browserSuite, createAccount, openSignedIn, shot, toast } from './helpers.ts';

const RECEIVER = `0x${'ab'.repeat(20)}`;
const WALLET = `0x${'cd'.repeat(20)}`;
let suite: BrowserSuite;
let page: Page;
let chain: FakeEthRpc;

browserSuite(
  'metamask',
  (ready) => {
    suite = ready;
    page = ready.page;
  },
  async () => {
    chain = await startFakeEthRpc({ chainId: '0xaa36a7', blockNumber: 5000 });
    return { ETH_RPC_URL: chain.url, ETH_CONFIRMATIONS: '3' };
  },
);
afterAll(() => chain?.close());

/** The wallet: answers the page's window.ethereum calls, and mines what it sends on the local chain. */
async function installWallet() {
  await page.exposeFunction('berthTestWallet', async (method: string, params: unknown[]) => {
    if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [WALLET];
    if (method === 'eth_chainId') return '0xaa36a7';
    if (method === 'eth_sendTransaction') {
      const tx = params[0] as { from: string; to: string; value: string; data: string };
      const hash = `0x${randomBytes(32).toString('hex')}`;
      chain.addTransaction(
        { hash, from: tx.from, to: tx.to, value: tx.value, input: tx.data },
        { block: 5001 },
      );
      chain.setBlockNumber(5004);
      return hash;
    }
    throw Object.assign(new Error(`unsupported ${method}`), { code: 4200 });
  });
  await page.addInitScript(() => {
    const call = (window as unknown as { berthTestWallet(m: string, p: unknown[]): Promise<unknown> })
      .berthTestWallet;
    (window as unknown as { ethereum: unknown }).ethereum = {
      isMetaMask: true,
      request: ({ method, params }: { method: string; params?: unknown[] }) => call(method, params ?? []),
    };
  });
}

describe('paying with MetaMask', () => {
  it('admin enables MetaMask → user pays Pro with the wallet → checked on chain → admin approves → Pro', async () => {
    const { baseUrl } = suite.server;
    const admin = await createAccount(baseUrl, {
      firstName: 'Katherine',
      lastName: 'Johnson',
      username: 'katherine',
      email: 'katherine@example.com',
      password: 'Orbital#Mechanics1',
    });
    await api(baseUrl, 'PUT', '/api/admin/payment-settings', {
      token: admin.token,
      body: { methods: { metamask: { enabled: true, receiverAddress: RECEIVER, chainId: '0xaa36a7' } } },
    });
    const user = await createAccount(baseUrl, {
      firstName: 'Dorothy',
      lastName: 'Vaughan',
      username: 'dorothy',
      email: 'dorothy@example.com',
      password: 'Fortran#Teacher1',
    });

    await installWallet();
    await openSignedIn(page, baseUrl, user.token, '/billing');
    await page.getByRole('button', { name: 'Choose Pro' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: /MetaMask/ }).click();
    await dialog.getByRole('button', { name: 'Pay with MetaMask' }).click();
    await dialog.getByText(/^Transaction sent\./).waitFor();
    await shot(page, 'metamask-sent');

    // The transaction went to the receiver, carrying the order reference, with no value.
    const [sent] = [...chain.state.transactions.values()];
    expect(sent).toMatchObject({ to: RECEIVER, from: WALLET, value: '0x0' });
    expect(Buffer.from(String(sent?.input).slice(2), 'hex').toString()).toMatch(/^berth:[0-9a-f-]{36}$/);
    // Nothing is active before support approves.
    const before = await api<{ subscription: { standing: string } }>(
      baseUrl,
      'GET',
      '/api/subscriptions/status',
      {
        token: user.token,
      },
    );
    expect(before.subscription.standing).toBe('trial');

    await openSignedIn(page, baseUrl, admin.token, '/admin-panel?tab=payments');
    const row = page.getByRole('row').filter({ hasText: 'dorothy' });
    await row.getByText('Verified on chain', { exact: true }).waitFor();
    await shot(page, 'metamask-admin-review');
    await row.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Approve payment' }).click();
    await toast(page, 'Payment approved');

    const after = await api<{ subscription: { standing: string; plan: string } }>(
      baseUrl,
      'GET',
      '/api/subscriptions/status',
      { token: user.token },
    );
    expect(after.subscription).toMatchObject({ standing: 'active', plan: 'pro' });
    await openSignedIn(page, baseUrl, user.token, '/billing');
    await page
      .getByRole('region', { name: /Billing history/i })
      .getByText('Pro (monthly)')
      .waitFor();
  });
});
