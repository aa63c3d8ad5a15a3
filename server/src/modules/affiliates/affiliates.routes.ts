import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json } from '../../lib/openapi-schemas.ts';
import { requireAdmin, requireUser } from '../../middleware/auth.ts';
import {
  AdminPayoutIdParamsSchema,
  AdminPayoutListSchema,
  AdminPayoutsQuerySchema,
  AffiliateProfileSchema,
  AffiliateRegisterBodySchema,
  AffiliateRegisterResultSchema,
  CompletePayoutBodySchema,
  DashboardSchema,
  FailPayoutBodySchema,
  GenerateCodeQuerySchema,
  GeneratedCodeSchema,
  PaymentDetailsBodySchema,
  PayoutListSchema,
  PayoutRequestResultSchema,
  PayoutRequestSchema,
  PayoutSchema,
  ReferralBodySchema,
  ReferralResultSchema,
  StatsQuerySchema,
  StatsSchema,
  TrackClickParamsSchema,
  TrackClickResultSchema,
} from './affiliates.schemas.ts';

const tags = ['Affiliates'];
/** No token needed; one may be sent (an empty requirement, or bearer). */
const OPTIONAL_BEARER: Record<string, string[]>[] = [{}, { bearerAuth: [] }];
const security = [{ bearerAuth: [] }];
const body = <T extends Parameters<typeof json>[0]>(schema: T, description: string) => ({
  body: { ...json(schema, description), required: true },
});
const affiliateErrors = {
  401: errorResponse('Not signed in (the UI sends the visitor to /affiliate/login)'),
  404: errorResponse('The user has no affiliate profile (the UI sends them to /affiliate/apply)'),
};

export const register = createRoute({
  method: 'post',
  path: '/api/affiliates/register',
  operationId: 'affiliates.register',
  tags,
  summary: 'The signed-in user joins the affiliate programme (payout method and details, stored encrypted)',
  security,
  middleware: requireUser,
  request: body(AffiliateRegisterBodySchema, 'Payout method, its details and an optional website'),
  responses: {
    201: json(AffiliateRegisterResultSchema, 'The new affiliate profile'),
    400: errorResponse('Missing payout details (the spec messages)'),
    401: errorResponse('Not signed in'),
    409: errorResponse('Already an affiliate'),
  },
});

export const me = createRoute({
  method: 'get',
  path: '/api/affiliates/me',
  operationId: 'affiliates.me',
  tags,
  summary: 'The affiliate profile with its payout details (the owner only)',
  security,
  middleware: requireUser,
  responses: { 200: json(AffiliateProfileSchema, 'The profile'), ...affiliateErrors },
});

export const dashboard = createRoute({
  method: 'get',
  path: '/api/affiliates/dashboard',
  operationId: 'affiliates.dashboard',
  tags,
  summary: 'Earnings, balances (from the commission ledger), referrals, clicks and month-over-month changes',
  security,
  middleware: requireUser,
  responses: { 200: json(DashboardSchema, 'The dashboard figures'), ...affiliateErrors },
});

export const stats = createRoute({
  method: 'get',
  path: '/api/affiliates/stats',
  operationId: 'affiliates.stats',
  tags,
  summary: 'Monthly statement of a year (UTC months): clicks, referrals, first payments, net commission',
  security,
  middleware: requireUser,
  request: { query: StatsQuerySchema },
  responses: {
    200: json(StatsSchema, 'Twelve months and their totals'),
    400: errorResponse('Invalid year'),
    ...affiliateErrors,
  },
});

export const referral = createRoute({
  method: 'put',
  path: '/api/affiliates/referral',
  operationId: 'affiliates.updateReferral',
  tags,
  summary: 'Referral code (unique, upper-cased), public name and number, website',
  security,
  middleware: requireUser,
  request: body(ReferralBodySchema, 'The fields to change'),
  responses: {
    200: json(ReferralResultSchema, 'The saved fields'),
    400: errorResponse('Invalid code or website'),
    409: errorResponse('The code is taken'),
    ...affiliateErrors,
  },
});

export const paymentDetails = createRoute({
  method: 'put',
  path: '/api/affiliates/payment-details',
  operationId: 'affiliates.updatePaymentDetails',
  tags,
  summary: 'Payout method and details (stored encrypted)',
  security,
  middleware: requireUser,
  request: body(PaymentDetailsBodySchema, 'Method and the details it needs'),
  responses: {
    200: json(AffiliateProfileSchema, 'The profile'),
    400: errorResponse('Missing details for the method'),
    ...affiliateErrors,
  },
});

export const generateCode = createRoute({
  method: 'post',
  path: '/api/affiliates/generate-code',
  operationId: 'affiliates.generateCode',
  tags,
  summary: 'The referral code and links; with force=true a new random code replaces the old one',
  security,
  middleware: requireUser,
  request: { query: GenerateCodeQuerySchema },
  responses: { 200: json(GeneratedCodeSchema, 'Code and links'), ...affiliateErrors },
});

export const listPayouts = createRoute({
  method: 'get',
  path: '/api/affiliates/payouts',
  operationId: 'affiliates.listPayouts',
  tags,
  summary: 'Payout history, the minimum payout and the balances',
  security,
  middleware: requireUser,
  responses: { 200: json(PayoutListSchema, 'Payouts, newest first'), ...affiliateErrors },
});

export const requestPayout = createRoute({
  method: 'post',
  path: '/api/affiliates/payouts',
  operationId: 'affiliates.requestPayout',
  tags,
  summary: 'Requests a payout of available (past the 30-day hold) earnings',
  security,
  middleware: requireUser,
  request: body(PayoutRequestSchema, 'The amount in currency units'),
  responses: {
    201: json(PayoutRequestResultSchema, 'The pending payout and the new balances'),
    400: errorResponse('Invalid amount, below the minimum, or above the available balance'),
    ...affiliateErrors,
  },
});

export const trackClick = createRoute({
  method: 'post',
  path: '/api/affiliates/track-click/{code}',
  operationId: 'affiliates.trackClick',
  tags,
  summary:
    'Counts a referral click (once per visitor per day; bots and the affiliate themself are not counted) and sets the 30-day referral cookie (last click wins)',
  // Open to visitors; a signed-in affiliate's own click is recognised by the optional token.
  security: OPTIONAL_BEARER,
  request: { params: TrackClickParamsSchema },
  responses: {
    200: json(TrackClickResultSchema, 'Whether the click was tracked and counted'),
    404: errorResponse('No active affiliate has this code'),
    429: errorResponse('Too many clicks from this address'),
  },
});

const adminErrors = {
  401: errorResponse('Not signed in'),
  403: errorResponse('Not an admin'),
};

export const adminList = createRoute({
  method: 'get',
  path: '/api/admin/affiliate-payouts',
  operationId: 'admin.listAffiliatePayouts',
  tags: ['Admin'],
  summary: 'Affiliate payout requests with the details to pay them, newest first (up to 200)',
  security,
  middleware: requireAdmin,
  request: { query: AdminPayoutsQuerySchema },
  responses: {
    200: json(AdminPayoutListSchema, 'Payout requests'),
    400: errorResponse('Invalid status'),
    ...adminErrors,
  },
});

export const adminComplete = createRoute({
  method: 'post',
  path: '/api/admin/affiliate-payouts/{id}/complete',
  operationId: 'admin.completeAffiliatePayout',
  tags: ['Admin'],
  summary: 'Marks a pending payout as sent, with its transaction id; the affiliate is notified',
  security,
  middleware: requireAdmin,
  request: { params: AdminPayoutIdParamsSchema, ...body(CompletePayoutBodySchema, 'The transaction id') },
  responses: {
    200: json(PayoutSchema, 'The payout'),
    400: errorResponse('No transaction id'),
    404: errorResponse('Payout not found'),
    409: errorResponse('Already processed'),
    ...adminErrors,
  },
});

export const adminFail = createRoute({
  method: 'post',
  path: '/api/admin/affiliate-payouts/{id}/fail',
  operationId: 'admin.failAffiliatePayout',
  tags: ['Admin'],
  summary:
    "Marks a pending payout as failed; its amount returns to the affiliate's balance; the affiliate is notified",
  security,
  middleware: requireAdmin,
  request: { params: AdminPayoutIdParamsSchema, ...body(FailPayoutBodySchema, 'An optional reason') },
  responses: {
    200: json(PayoutSchema, 'The payout'),
    404: errorResponse('Payout not found'),
    409: errorResponse('Already processed'),
    ...adminErrors,
  },
});
