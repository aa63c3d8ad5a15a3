import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json } from '../../../lib/openapi-schemas.ts';
import { requireAdmin, requireUser } from '../../../middleware/auth.ts';
import {
  AdminMetaMaskOrderListSchema,
  AdminMetaMaskOrderSchema,
  AdminMetaMaskQuerySchema,
  MetaMaskOrderCreatedSchema,
  MetaMaskOrderListSchema,
  MetaMaskOrderRequestSchema,
  MetaMaskOrderSchema,
  MetaMaskTransactionRequestSchema,
  OrderIdParamsSchema,
  RejectRequestSchema,
} from './metamask.schemas.ts';

const bearer = [{ bearerAuth: [] }];
const INTENT_NOT_PAYMENT =
  'A MetaMask payment is a zero-value transaction: it proves that the wallet owner meant to order, not that money was paid. Support checks the payment and approves it by hand.';

export const createOrder = createRoute({
  method: 'post',
  path: '/api/payments/metamask/orders',
  operationId: 'payments.metamaskCreateOrder',
  tags: ['Payments'],
  summary: 'Starts a MetaMask payment: a pending order and the transaction to send',
  description: `Checks the method and the plan rules, then answers the receiver, the network and the transaction data (the order reference) for eth_sendTransaction. ${INTENT_NOT_PAYMENT}`,
  security: bearer,
  middleware: requireUser,
  request: {
    body: { content: { 'application/json': { schema: MetaMaskOrderRequestSchema } }, required: true },
  },
  responses: {
    201: json(MetaMaskOrderCreatedSchema, 'The pending order and the transaction to send'),
    400: errorResponse('Invalid body'),
    401: errorResponse('Not signed in'),
    409: errorResponse('Method not available, add-on not allowed, or downgrade blocked (spec message)'),
  },
});

export const submitTransaction = createRoute({
  method: 'post',
  path: '/api/payments/metamask/orders/{id}/transaction',
  operationId: 'payments.metamaskSubmitTransaction',
  tags: ['Payments'],
  summary: 'Stores the transaction MetaMask sent for an order (status submitted)',
  description: `The hash is checked on chain at once when the server has an ETH_RPC_URL, and again periodically; the plan becomes active only when support approves. ${INTENT_NOT_PAYMENT}`,
  security: bearer,
  middleware: requireUser,
  request: {
    params: OrderIdParamsSchema,
    body: { content: { 'application/json': { schema: MetaMaskTransactionRequestSchema } }, required: true },
  },
  responses: {
    201: json(MetaMaskOrderSchema, 'The order with its transaction (and the first check, if any)'),
    400: errorResponse('Invalid body, or the transaction is on another network than the order'),
    401: errorResponse('Not signed in'),
    404: errorResponse('No such order of this user'),
    409: errorResponse(
      'Method not available, or the hash (or a transaction for this order) was already submitted',
    ),
  },
});

export const listOwn = createRoute({
  method: 'get',
  path: '/api/payments/metamask/orders',
  operationId: 'payments.metamaskOrders',
  tags: ['Payments'],
  summary: "The signed-in user's MetaMask payments, newest first",
  security: bearer,
  middleware: requireUser,
  responses: {
    200: json(MetaMaskOrderListSchema, 'The orders'),
    401: errorResponse('Not signed in'),
  },
});

export const getOwn = createRoute({
  method: 'get',
  path: '/api/payments/metamask/orders/{id}',
  operationId: 'payments.metamaskOrder',
  tags: ['Payments'],
  summary: 'One MetaMask payment of the signed-in user',
  security: bearer,
  middleware: requireUser,
  request: { params: OrderIdParamsSchema },
  responses: {
    200: json(MetaMaskOrderSchema, 'The order'),
    401: errorResponse('Not signed in'),
    404: errorResponse('No such order of this user'),
  },
});

export const adminList = createRoute({
  method: 'get',
  path: '/api/admin/payments/metamask',
  operationId: 'admin.metamaskPayments',
  tags: ['Admin'],
  summary: 'MetaMask payments to review, newest first, with the user and what the on-chain check found',
  description: `Without a status filter, orders that never got a transaction are left out. ${INTENT_NOT_PAYMENT}`,
  security: bearer,
  middleware: requireAdmin,
  request: { query: AdminMetaMaskQuerySchema },
  responses: {
    200: json(AdminMetaMaskOrderListSchema, 'The orders'),
    400: errorResponse('Invalid query'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
  },
});

export const adminVerify = createRoute({
  method: 'post',
  path: '/api/admin/payments/metamask/{id}/verify',
  operationId: 'admin.metamaskVerify',
  tags: ['Admin'],
  summary: 'Checks a MetaMask transaction on chain now',
  description:
    'Chain, success, receiver, sender, zero value, order reference in the data, confirmations. Mismatches are listed, never rejected automatically.',
  security: bearer,
  middleware: requireAdmin,
  request: { params: OrderIdParamsSchema },
  responses: {
    200: json(AdminMetaMaskOrderSchema, 'The order with the new findings'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
    404: errorResponse('No such MetaMask order'),
    409: errorResponse('No ETH_RPC_URL configured, or no transaction submitted yet'),
    502: errorResponse('The Ethereum RPC did not answer'),
  },
});

export const adminApprove = createRoute({
  method: 'post',
  path: '/api/admin/payments/metamask/{id}/approve',
  operationId: 'admin.metamaskApprove',
  tags: ['Admin'],
  summary:
    'Approves a MetaMask payment: the plan (or add-on) is active at once, an invoice recorded, the user told',
  description: `Allowed whether or not the on-chain check passed: support decides. ${INTENT_NOT_PAYMENT}`,
  security: bearer,
  middleware: requireAdmin,
  request: { params: OrderIdParamsSchema },
  responses: {
    200: json(AdminMetaMaskOrderSchema, 'The completed order'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
    404: errorResponse('No such MetaMask order'),
    409: errorResponse(
      'Already approved or rejected, no transaction submitted yet, or an add-on for a user no longer on Starter',
    ),
  },
});

export const adminReject = createRoute({
  method: 'post',
  path: '/api/admin/payments/metamask/{id}/reject',
  operationId: 'admin.metamaskReject',
  tags: ['Admin'],
  summary: 'Rejects a MetaMask payment; the user is notified (with the reason, if given)',
  description: 'The subscription does not change.',
  security: bearer,
  middleware: requireAdmin,
  request: {
    params: OrderIdParamsSchema,
    body: { content: { 'application/json': { schema: RejectRequestSchema } }, required: true },
  },
  responses: {
    200: json(AdminMetaMaskOrderSchema, 'The rejected order'),
    400: errorResponse('Invalid body'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
    404: errorResponse('No such MetaMask order'),
    409: errorResponse('Already approved or rejected'),
  },
});
