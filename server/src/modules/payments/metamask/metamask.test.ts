import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type BodyOf,
  call,
  createTestApp,
  present,
  register,
  registerAdmin,
  type TestApp,
} from '../../../../test/create-test-app.ts';
import { type FakeEthRpc, startFakeEthRpc } from '../../../../test/fake-eth-rpc.ts';
import { insertInstanceRows } from '../../../../test/instance-rows.ts';
import { createTestDatabase, truncateAll } from '../../../../test/test-db.ts';
import type { Db } from '../../../db/database.ts';
import { DOWNGRADE_BLOCKED_MESSAGE } from '../../subscriptions/billing-rules.ts';
import type { ProviderDeps } from '../provider-contract.ts';
import { ADDON_ONLY_ON_ACTIVE_STARTER, PAYMENT_METHOD_UNAVAILABLE } from '../purchase.ts';
import { ORDER_HAS_TRANSACTION, TX_ALREADY_SUBMITTED, WRONG_CHAIN } from './metamask.service.ts';
import { createMetaMask } from './metamask.ts';
import {
  ADDON_NEEDS_STARTER,
  ALREADY_APPROVED,
  ALREADY_REJECTED,
  NOT_CHECKED_NO_RPC,
} from './metamask-review.service.ts';
import { orderRefData } from './metamask-verify.ts';

/**
 * MetaMask payments on the real test database: orders, submitted transactions, on-chain checks against a
 * local JSON-RPC node, and the admin's review (approve, reject).
 */

const RECEIVER = `0x${'Ab'.repeat(20)}`;
const FROM = `0x${'12'.repeat(20)}`;
const SEPOLIA = '0xaa36a7';
const CONFIRMATIONS = 3;
let hashCounter = 0;
const newHash = () => `0x${(++hashCounter).toString(16).padStart(64, 'a')}`;

let db: Db;
let app: TestApp;
let rpc: FakeEthRpc;
let admin: string;
let user: string;
let userId: string;

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  rpc = await startFakeEthRpc({ chainId: SEPOLIA, blockNumber: 1000 });
});
afterAll(() => rpc?.close());

/** A fresh database, an admin (the first account) and a user, MetaMask on Sepolia enabled. */
async function setUp(ethereum: boolean) {
  await truncateAll(db);
  rpc.reset();
  app = createTestApp(db, {
    publicUrl: 'http://app.test',
    payments: ethereum ? { ethereum: { rpcUrl: rpc.url, confirmations: CONFIRMATIONS } } : {},
  });
  admin = (await registerAdmin(app, db)).token;
  const account = await register(app);
  user = account.token;
  userId = String(account.user.id);
  const res = await setMetaMask({ enabled: true, receiverAddress: RECEIVER, chainId: SEPOLIA });
  expect(res.status).toBe(200);
}

const setMetaMask = (metamask: Record<string, unknown>) =>
  call(app, 'PUT', '/api/admin/payment-settings', { token: admin, body: { methods: { metamask } } });

const createOrder = (
  token: string,
  body: BodyOf<'POST', '/api/payments/metamask/orders'> = { plan: 'pro', billingCycle: 'monthly' },
) => call(app, 'POST', '/api/payments/metamask/orders', { token, body });

const submit = (token: string, id: string, body: Record<string, unknown> = {}) =>
  call(app, 'POST', `/api/payments/metamask/orders/${id}/transaction`, {
    token,
    body: { chainId: SEPOLIA, from: FROM, txHash: newHash(), ...body },
  });

/** An order and its transaction; on the fake chain too unless `chain` is false. */
async function pay(
  token: string,
  opts: {
    body?: BodyOf<'POST', '/api/payments/metamask/orders'>;
    chain?:
      | false
      | { block?: number; status?: string; to?: string; from?: string; value?: string; input?: string };
  } = {},
) {
  const order = await createOrder(token, opts.body);
  expect(order.status).toBe(201);
  const txHash = newHash();
  if (opts.chain !== false) {
    const c = opts.chain ?? {};
    rpc.addTransaction(
      {
        hash: txHash,
        from: c.from ?? FROM,
        to: c.to ?? RECEIVER.toLowerCase(),
        value: c.value ?? '0x0',
        input: c.input ?? order.json.transaction.data,
      },
      c.block === undefined ? undefined : { block: c.block, status: c.status },
    );
  }
  const res = await submit(token, order.json.id, { txHash });
  return { order: order.json, res, txHash };
}

const adminList = async () => (await call(app, 'GET', '/api/admin/payments/metamask', { token: admin })).json;
const approve = (id: string, token = admin) =>
  call(app, 'POST', `/api/admin/payments/metamask/${id}/approve`, { token });
const reject = (id: string, reason?: string, token = admin) =>
  call(app, 'POST', `/api/admin/payments/metamask/${id}/reject`, { token, body: reason ? { reason } : {} });
const subscription = async (token: string) =>
  (await call(app, 'GET', '/api/subscriptions/status', { token })).json.subscription;
const notifications = async (token: string) =>
  (await call(app, 'GET', '/api/notifications', { token })).json.items as {
    title: string;
    message: string;
  }[];

describe('MetaMask orders without an RPC', () => {
  beforeEach(() => setUp(false));

  it('creates a pending order with the transaction to send, then stores the transaction as submitted', async () => {
    const order = await createOrder(user);
    expect(order.status).toBe(201);
    expect(order.json).toMatchObject({
      status: 'pending',
      kind: 'plan',
      plan: 'pro',
      billingCycle: 'monthly',
      amount: 19.99,
      currency: 'USD',
      chainId: SEPOLIA,
      receiverAddress: RECEIVER,
      orderRef: `berth:${order.json.id}`,
      txHash: null,
      transaction: { to: RECEIVER, value: '0x0', data: orderRefData(`berth:${order.json.id}`) },
    });
    expect(order.json.transaction.data).toBe(`0x${Buffer.from(`berth:${order.json.id}`).toString('hex')}`);

    const txHash = newHash();
    const res = await submit(user, order.json.id, {
      txHash: txHash.toUpperCase().replace('0X', '0x'),
      from: FROM,
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      id: order.json.id,
      status: 'submitted',
      txHash,
      from: FROM,
      verification: null,
    });

    const own = await call(app, 'GET', '/api/payments/metamask/orders', { token: user });
    expect(own.status).toBe(200);
    expect(own.json.orders).toHaveLength(1);
    expect(own.json.orders[0]).toMatchObject({ id: order.json.id, status: 'submitted', txHash });

    const list = await adminList();
    expect(list.onChainChecks).toBe(false);
    expect(list.orders).toHaveLength(1);
    expect(list.orders[0]).toMatchObject({
      id: order.json.id,
      status: 'submitted',
      user: { email: expect.stringContaining('@example.com'), username: expect.any(String) },
      verification: null,
      verificationState: 'not_checked',
      verificationNote: NOT_CHECKED_NO_RPC,
    });
  });

  it('refuses orders and transactions while MetaMask is not available (409)', async () => {
    const order = await createOrder(user);
    expect((await setMetaMask({ enabled: false })).status).toBe(200);
    const created = await createOrder(user);
    expect(created.status).toBe(409);
    expect(created.json.message).toBe(PAYMENT_METHOD_UNAVAILABLE);
    const submitted = await submit(user, order.json.id);
    expect(submitted.status).toBe(409);
    expect(submitted.json.message).toBe(PAYMENT_METHOD_UNAVAILABLE);
  });

  it('refuses a transaction on another network (400)', async () => {
    const order = await createOrder(user);
    const res = await submit(user, order.json.id, { chainId: '0x89' });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(WRONG_CHAIN(SEPOLIA));
    expect(res.json.message).toContain('Sepolia');
  });

  it('refuses a replayed transaction hash (409), and a second transaction for one order', async () => {
    const first = await createOrder(user);
    const txHash = newHash();
    expect((await submit(user, first.json.id, { txHash })).status).toBe(201);
    const again = await submit(user, first.json.id, { txHash });
    expect(again.status).toBe(409);
    expect(again.json.message).toBe(TX_ALREADY_SUBMITTED);
    const other = await createOrder(user);
    // The same hash in upper-case hex is the same transaction.
    const replay = await submit(user, other.json.id, { txHash: `0x${txHash.slice(2).toUpperCase()}` });
    expect(replay.status).toBe(409);
    const replayed = await submit(user, other.json.id, { txHash });
    expect(replayed.status).toBe(409);
    expect(replayed.json.message).toBe(TX_ALREADY_SUBMITTED);
    const second = await submit(user, first.json.id);
    expect(second.status).toBe(409);
    expect(second.json.message).toBe(ORDER_HAS_TRANSACTION);
  });

  it('validates the body with clear messages', async () => {
    const order = await createOrder(user);
    const bad = await submit(user, order.json.id, { txHash: '0x1234', from: 'me' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain('txHash must be a transaction hash');
    expect(JSON.stringify(bad.json)).toContain('from must be an address');
    const plan = await call(app, 'POST', '/api/payments/metamask/orders', {
      token: user,
      badBody: { plan: 'gold', billingCycle: 'monthly' },
    });
    expect(plan.status).toBe(400);
  });

  it("hides another user's orders (404) and needs a signed-in user", async () => {
    const order = await createOrder(user);
    const other = (await register(app)).token;
    expect((await submit(other, order.json.id)).status).toBe(404);
    expect(
      (await call(app, 'GET', `/api/payments/metamask/orders/${order.json.id}`, { token: other })).status,
    ).toBe(404);
    expect(
      (await call(app, 'GET', `/api/payments/metamask/orders/${order.json.id}`, { token: user })).status,
    ).toBe(200);
    expect((await call(app, 'GET', '/api/payments/metamask/orders', { token: other })).json.orders).toEqual(
      [],
    );
    expect((await submit(user, 'not-a-uuid')).status).toBe(404);
    expect(
      (await call(app, 'POST', '/api/payments/metamask/orders', { badBody: { plan: 'pro' } })).status,
    ).toBe(401);
  });

  it('applies the plan rules: add-on only on an active Starter, downgrade blocked with extra instances', async () => {
    const addon = await createOrder(user, { purchaseType: 'addon_instance' });
    expect(addon.status).toBe(409);
    expect(addon.json.message).toBe(ADDON_ONLY_ON_ACTIVE_STARTER);

    const { order } = await pay(user, { chain: false });
    expect((await approve(order.id)).status).toBe(200);
    await insertInstanceRows(db, userId, 2);
    const down = await createOrder(user, { plan: 'starter', billingCycle: 'monthly' });
    expect(down.status).toBe(409);
    expect(down.json.message).toBe(DOWNGRADE_BLOCKED_MESSAGE);
  });

  it('approves: plan active at once, invoice in the billing history, user notified; twice is 409', async () => {
    const { order, txHash } = await pay(user, {
      chain: false,
      body: { plan: 'pro', billingCycle: 'yearly' },
    });
    expect((await subscription(user)).standing).toBe('trial');

    expect((await approve(order.id, user)).status).toBe(403);
    const res = await approve(order.id);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: order.id, status: 'completed', verificationState: 'not_checked' });

    const sub = await subscription(user);
    expect(sub).toMatchObject({ plan: 'pro', standing: 'active', billingCycle: 'yearly' });

    const history = await call(app, 'GET', '/api/payments/billing-history', { token: user });
    expect(history.json.invoices).toHaveLength(1);
    expect(history.json.invoices[0]).toMatchObject({
      provider: 'metamask',
      amount: order.amount,
      currency: 'USD',
      description: 'Pro (yearly)',
      status: 'paid',
    });
    const invoice = await db
      .selectFrom('invoices')
      .select(['provider_ref', 'order_id'])
      .executeTakeFirstOrThrow();
    expect(invoice).toEqual({ provider_ref: txHash, order_id: order.id });
    expect((await notifications(user))[0]).toMatchObject({ title: 'Payment received' });

    const twice = await approve(order.id);
    expect(twice.status).toBe(409);
    expect(twice.json.message).toBe(ALREADY_APPROVED);
    expect((await reject(order.id)).status).toBe(409);
    expect(
      (await call(app, 'GET', '/api/payments/billing-history', { token: user })).json.invoices,
    ).toHaveLength(1);
  });

  it('approves an additional instance on an active Starter (one more instance, same period)', async () => {
    const starter = await pay(user, { chain: false, body: { plan: 'starter', billingCycle: 'monthly' } });
    expect((await approve(starter.order.id)).status).toBe(200);
    const before = await subscription(user);
    expect(before.maxInstances).toBe(1);

    const addon = await pay(user, { chain: false, body: { purchaseType: 'addon_instance' } });
    expect(addon.order).toMatchObject({ kind: 'addon_instance', plan: 'starter', amount: 3.99 });
    expect((await approve(addon.order.id)).status).toBe(200);
    const after = await subscription(user);
    expect(after).toMatchObject({
      plan: 'starter',
      maxInstances: 2,
      nextBillingDate: before.nextBillingDate,
    });
    // An add-on paid while on Starter is not approved once the user moved to Pro.
    const late = await pay(user, { chain: false, body: { purchaseType: 'addon_instance' } });
    const pro = await pay(user, { chain: false });
    expect((await approve(pro.order.id)).status).toBe(200);
    const refused = await approve(late.order.id);
    expect(refused.status).toBe(409);
    expect(refused.json.message).toBe(ADDON_NEEDS_STARTER);
    expect((await subscription(user)).plan).toBe('pro');

    const history = await call(app, 'GET', '/api/payments/billing-history', { token: user });
    expect(history.json.invoices.map((i: { description: string }) => i.description).sort()).toEqual([
      'Additional instance (monthly)',
      'Pro (monthly)',
      'Starter (monthly)',
    ]);
  });

  it('rejects: the order is rejected, the user told, the plan unchanged; then neither approve nor reject', async () => {
    const { order } = await pay(user, { chain: false });
    expect((await reject(order.id, 'reason', user)).status).toBe(403);
    const res = await reject(order.id, 'The transaction went to another address.');
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('rejected');
    expect((await subscription(user)).standing).toBe('trial');
    const [note] = await notifications(user);
    expect(note?.title).toBe('Payment not accepted');
    expect(note?.message).toContain('The transaction went to another address.');
    const again = await approve(order.id);
    expect(again.status).toBe(409);
    expect(again.json.message).toBe(ALREADY_REJECTED);
    expect((await reject(order.id)).status).toBe(409);
  });

  it('answers 404 for unknown orders and keeps the admin routes to admins', async () => {
    const unknown = '3f0c1f5e-8a1b-4c1e-9a3e-2d4b5c6d7e8f';
    expect((await approve(unknown)).status).toBe(404);
    expect((await reject(unknown)).status).toBe(404);
    expect((await approve('nope')).status).toBe(404);
    expect((await call(app, 'GET', '/api/admin/payments/metamask', { token: user })).status).toBe(403);
    const verify = await call(app, 'POST', `/api/admin/payments/metamask/${unknown}/verify`, {
      token: admin,
    });
    expect(verify.status).toBe(404);
  });

  it('approving a pending order without a transaction is refused', async () => {
    const order = await createOrder(user);
    expect((await approve(order.json.id)).status).toBe(409);
  });
});

describe('MetaMask on-chain checks', () => {
  beforeEach(() => setUp(true));

  it('verifies a transaction with enough confirmations', async () => {
    const { res } = await pay(user, { chain: { block: 998 } });
    expect(res.status).toBe(201);
    expect(res.json.status).toBe('verified');
    expect(res.json.verification).toMatchObject({
      ok: true,
      confirmations: 3,
      requiredConfirmations: CONFIRMATIONS,
      problems: [],
      waiting: null,
    });
    const [listed] = (await adminList()).orders;
    expect(listed).toMatchObject({ status: 'verified', verificationState: 'verified' });
    expect((await approve(res.json.id)).json.status).toBe('completed');
  });

  it('keeps a transaction with too few confirmations submitted, then verifies it later', async () => {
    const { res } = await pay(user, { chain: { block: 999 } });
    expect(res.json.status).toBe('submitted');
    expect(res.json.verification).toMatchObject({
      ok: false,
      confirmations: 2,
      problems: [],
      waiting: '2 of 3 confirmations',
    });
    expect((await adminList()).orders[0]).toMatchObject({ verificationState: 'waiting' });

    rpc.setBlockNumber(1001);
    const verify = await call(app, 'POST', `/api/admin/payments/metamask/${res.json.id}/verify`, {
      token: admin,
    });
    expect(verify.status).toBe(200);
    expect(verify.json).toMatchObject({ status: 'verified', verification: { ok: true, confirmations: 3 } });
  });

  it('keeps an unmined or unknown transaction waiting, and verifyPending picks it up', async () => {
    const unmined = await pay(user, {});
    expect(unmined.res.json).toMatchObject({
      status: 'submitted',
      verification: { ok: false, confirmations: 0, waiting: 'Not mined yet' },
    });
    const unknown = await pay(user, { chain: false });
    expect(unknown.res.json.verification?.waiting).toMatch(/not found/i);

    const metamask = createMetaMask({ rpcUrl: rpc.url, confirmations: CONFIRMATIONS }, {
      db,
      now: () => new Date(),
      publicUrl: 'http://app.test',
    } as unknown as ProviderDeps);
    expect(await metamask.verifyPending()).toBe(0);
    rpc.addTransaction(
      { hash: unmined.txHash, from: FROM, to: RECEIVER, input: unmined.order.transaction.data },
      { block: 990 },
    );
    expect(await metamask.verifyPending()).toBe(1);
    const own = (await call(app, 'GET', '/api/payments/metamask/orders', { token: user })).json.orders;
    expect(own.find((o) => o.id === unmined.order.id)?.status).toBe('verified');
    expect(own.find((o) => o.id === unknown.order.id)?.status).toBe('submitted');

    rpc.state.failing = true;
    await expect(metamask.verifyPending()).rejects.toThrow();
  });

  it('lists every mismatch (receiver, sender, value, order reference) without rejecting', async () => {
    const { res } = await pay(user, {
      chain: {
        block: 900,
        to: `0x${'99'.repeat(20)}`,
        from: `0x${'34'.repeat(20)}`,
        value: '0xde0b6b3a7640000',
        input: '0x',
      },
    });
    expect(res.status).toBe(201);
    expect(res.json.status).toBe('submitted');
    const problems = present(res.json.verification, 'a verification').problems;
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/not to the receiver/);
    expect(problems.join('\n')).toMatch(/not from/);
    expect(problems.join('\n')).toMatch(/1000000000000000000 wei/);
    expect(problems.join('\n')).toMatch(/order reference/);
    expect(res.json.verification?.ok).toBe(false);
    const [listed] = (await adminList()).orders;
    expect(listed).toMatchObject({ status: 'submitted', verificationState: 'problems' });
    expect(listed?.verificationNote).toMatch(/not to the receiver/);
    // Support may still approve.
    expect((await approve(res.json.id)).json.status).toBe('completed');
  });

  it('lists a failed transaction (receipt status 0x0)', async () => {
    const { res } = await pay(user, { chain: { block: 900, status: '0x0' } });
    expect(res.json.status).toBe('submitted');
    expect(res.json.verification?.problems).toEqual(['The transaction failed on chain (receipt status 0x0)']);
  });

  it('lists an RPC on another chain as a problem', async () => {
    rpc.state.chainId = '0x89';
    const { res } = await pay(user, { chain: { block: 900 } });
    expect(res.json.verification?.problems[0]).toMatch(/serves chain 0x89/);
  });

  it('stores the transaction even when the RPC is down; verify now answers 502', async () => {
    rpc.state.failing = true;
    const { res } = await pay(user, { chain: { block: 900 } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ status: 'submitted', verification: null });
    expect((await adminList()).orders[0]).toMatchObject({
      verificationState: 'not_checked',
      verificationNote: 'not checked yet',
    });
    const verify = await call(app, 'POST', `/api/admin/payments/metamask/${res.json.id}/verify`, {
      token: admin,
    });
    expect(verify.status).toBe(502);
    rpc.state.failing = false;
    const again = await call(app, 'POST', `/api/admin/payments/metamask/${res.json.id}/verify`, {
      token: admin,
    });
    expect(again.json.status).toBe('verified');
  });

  it('answers single and batch JSON-RPC requests', async () => {
    const single = await fetch(rpc.url, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] }),
    });
    expect(await single.json()).toEqual({ jsonrpc: '2.0', id: 7, result: SEPOLIA });
    const batch = await fetch(rpc.url, {
      method: 'POST',
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'eth_getTransactionReceipt', params: [newHash()] },
      ]),
    });
    expect(await batch.json()).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x3e8' },
      { jsonrpc: '2.0', id: 2, result: null },
    ]);
  });
});
