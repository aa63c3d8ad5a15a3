import type { EthRpc } from './eth-rpc.ts';

/** What the last on-chain check of a MetaMask transaction found (payment_orders.verification). */
export interface Verification {
  checkedAt: string;
  /** Every check passed with enough confirmations. */
  ok: boolean;
  /** Blocks from the transaction's to the head, both counted; 0 while unmined. */
  confirmations: number;
  requiredConfirmations: number;
  /** Mismatches support must look at (never fixed by waiting). */
  problems: string[];
  /** Why it is not verified yet although nothing mismatches (not found, unmined, too few confirmations). */
  waiting: string | null;
}

/** What the transaction must show. */
export interface ExpectedTransaction {
  txHash: string;
  chainId: string;
  from: string;
  orderRef: string;
  /** The receiver of the payment settings; null when none is set. */
  receiver: string | null;
}

/** '0x' and the UTF-8 bytes of the order reference in hex: the `data` of the MetaMask transaction. */
export function orderRefData(orderRef: string): string {
  return `0x${Buffer.from(orderRef, 'utf8').toString('hex')}`;
}

/**
 * Checks a submitted transaction on chain: the RPC's chain, that the transaction exists and succeeded, its
 * receiver, sender, zero value, the order reference in its data, and the confirmations.
 */
export async function checkTransaction(
  rpc: EthRpc,
  expected: ExpectedTransaction,
  requiredConfirmations: number,
  now: Date,
): Promise<Verification> {
  const problems: string[] = [];
  const result = (confirmations: number, waiting: string | null): Verification => ({
    checkedAt: now.toISOString(),
    ok: problems.length === 0 && waiting === null,
    confirmations,
    requiredConfirmations,
    problems,
    waiting,
  });

  const rpcChain = (await rpc.chainId()).toLowerCase();
  if (rpcChain !== expected.chainId.toLowerCase()) {
    problems.push(
      `The configured RPC serves chain ${rpcChain}, not the order's chain ${expected.chainId}: check ETH_RPC_URL`,
    );
    return result(0, null);
  }

  const tx = await rpc.transaction(expected.txHash);
  if (!tx) return result(0, 'Transaction not found on chain yet (not propagated, or an unknown hash)');

  if (expected.receiver === null)
    problems.push('No MetaMask receiver address is set in the payment settings');
  else if (tx.to?.toLowerCase() !== expected.receiver.toLowerCase())
    problems.push(
      `Sent to ${tx.to ?? 'no address (contract creation)'}, not to the receiver ${expected.receiver}`,
    );
  if (tx.from.toLowerCase() !== expected.from.toLowerCase())
    problems.push(`Sent from ${tx.from}, not from ${expected.from} as submitted`);
  const value = BigInt(tx.value);
  if (value !== 0n)
    problems.push(`Carries a value of ${value} wei; MetaMask payments are zero-value transactions`);
  if (!tx.input.toLowerCase().includes(orderRefData(expected.orderRef).slice(2)))
    problems.push(`The transaction data does not contain the order reference ${expected.orderRef}`);

  const receipt = tx.blockNumber === null ? null : await rpc.receipt(expected.txHash);
  if (!receipt) return result(0, 'Not mined yet');
  if (receipt.status !== '0x1')
    problems.push(`The transaction failed on chain (receipt status ${receipt.status})`);
  const head = await rpc.blockNumber();
  const confirmations = Math.max(0, Number(head - BigInt(receipt.blockNumber) + 1n));
  return result(
    confirmations,
    confirmations < requiredConfirmations
      ? `${confirmations} of ${requiredConfirmations} confirmations`
      : null,
  );
}
