import { z } from '@hono/zod-openapi';

const ChainId = z
  .string({ error: 'chainId is required' })
  .regex(/^0x[0-9a-fA-F]+$/, 'chainId must be a hex chain id such as 0xaa36a7 (Sepolia) or 0x89 (Polygon)')
  .openapi({ example: '0xaa36a7' });
const Address = z
  .string({ error: 'from is required' })
  .regex(/^0x[0-9a-fA-F]{40}$/, 'from must be an address: 0x followed by 40 hex characters')
  .openapi({ example: '0x52908400098527886e0f7030069857d2e4169ee7' });
const TxHash = z
  .string({ error: 'txHash is required' })
  .regex(/^0x[0-9a-fA-F]{64}$/, 'txHash must be a transaction hash: 0x followed by 64 hex characters')
  .openapi({ example: '0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b' });

export const MetaMaskOrderRequestSchema = z
  .union([
    z.object({
      purchaseType: z.literal('addon_instance', { error: "purchaseType must be 'addon_instance'" }),
    }),
    z.object({
      plan: z.enum(['starter', 'pro'], { error: 'plan must be starter or pro' }),
      billingCycle: z.enum(['monthly', 'yearly'], { error: 'billingCycle must be monthly or yearly' }),
    }),
  ])
  .openapi('MetaMaskOrderRequest', {
    description: 'Either an additional instance for an active Starter plan, or a plan and billing cycle',
  });

export const MetaMaskTransactionRequestSchema = z
  .object({ chainId: ChainId, from: Address, txHash: TxHash })
  .openapi('MetaMaskTransactionRequest', {
    description: 'The transaction MetaMask sent for the order (the hash eth_sendTransaction answered)',
  });

export const OrderIdParamsSchema = z.object({
  id: z
    .string()
    .openapi({ param: { name: 'id', in: 'path' }, example: '3f0c1f5e-8a1b-4c1e-9a3e-2d4b5c6d7e8f' }),
});

const VerificationSchema = z
  .object({
    checkedAt: z.iso.datetime(),
    ok: z.boolean().openapi({ description: 'Every check passed with enough confirmations' }),
    confirmations: z.number().int(),
    requiredConfirmations: z.number().int(),
    problems: z.array(z.string()).openapi({ description: 'Mismatches found on chain (support decides)' }),
    waiting: z
      .string()
      .nullable()
      .openapi({ description: 'Why it is not verified yet although nothing mismatches' }),
  })
  .openapi('MetaMaskVerification');

export const MetaMaskOrderSchema = z
  .object({
    id: z.uuid(),
    orderRef: z.string().openapi({ description: 'Goes (as UTF-8 hex) in the transaction data' }),
    status: z.enum(['pending', 'submitted', 'verified', 'completed', 'rejected']).openapi({
      description:
        'pending: no transaction yet; submitted: waiting for checks or support; verified: the chain checks passed; completed: approved (plan active); rejected',
    }),
    kind: z.enum(['plan', 'addon_instance']),
    plan: z.enum(['starter', 'pro']),
    billingCycle: z.enum(['monthly', 'yearly']),
    amount: z
      .number()
      .openapi({ description: 'The price of the period (the transaction itself carries no value)' }),
    currency: z.string(),
    chainId: z.string(),
    from: z.string().nullable(),
    txHash: z.string().nullable(),
    verification: VerificationSchema.nullable().openapi({
      description: 'The last on-chain check; null when none was made (no ETH_RPC_URL, or not yet)',
    }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi('MetaMaskOrder');

export const MetaMaskOrderCreatedSchema = MetaMaskOrderSchema.extend({
  receiverAddress: z.string(),
  transaction: z
    .object({ to: z.string(), value: z.literal('0x0'), data: z.string() })
    .openapi({ description: 'The eth_sendTransaction parameters (add `from`, the connected account)' }),
}).openapi('MetaMaskOrderCreated');

export const MetaMaskOrderListSchema = z
  .object({ orders: z.array(MetaMaskOrderSchema) })
  .openapi('MetaMaskOrderList');

export const AdminMetaMaskOrderSchema = MetaMaskOrderSchema.extend({
  user: z.object({ id: z.uuid(), email: z.string(), username: z.string() }),
  verificationState: z.enum(['not_checked', 'waiting', 'verified', 'problems']),
  verificationNote: z.string().openapi({
    description: "One line for the reviewer, e.g. 'not checked: no ETH_RPC_URL' or '12 of 12 confirmations'",
  }),
}).openapi('AdminMetaMaskOrder');

export const AdminMetaMaskOrderListSchema = z
  .object({
    orders: z.array(AdminMetaMaskOrderSchema),
    onChainChecks: z.boolean().openapi({ description: 'Whether an ETH_RPC_URL is configured' }),
  })
  .openapi('AdminMetaMaskOrderList');

export const AdminMetaMaskQuerySchema = z.object({
  status: z
    .enum(['pending', 'submitted', 'verified', 'completed', 'rejected'], {
      error: 'status must be pending, submitted, verified, completed or rejected',
    })
    .optional(),
});

export const RejectRequestSchema = z
  .object({
    reason: z
      .string()
      .trim()
      .max(500, 'The reason must be at most 500 characters')
      .optional()
      .openapi({ description: 'Shown to the user in the notification' }),
  })
  .openapi('MetaMaskRejectRequest');

export type MetaMaskOrderRequest = z.infer<typeof MetaMaskOrderRequestSchema>;
export type MetaMaskTransactionRequest = z.infer<typeof MetaMaskTransactionRequestSchema>;
export type MetaMaskOrder = z.infer<typeof MetaMaskOrderSchema>;
export type MetaMaskOrderCreated = z.infer<typeof MetaMaskOrderCreatedSchema>;
export type AdminMetaMaskOrder = z.infer<typeof AdminMetaMaskOrderSchema>;
