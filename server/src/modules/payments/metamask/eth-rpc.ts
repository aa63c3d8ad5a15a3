/**
 * A small Ethereum JSON-RPC client over fetch: the four read calls the MetaMask check needs. Quantities
 * stay hex strings, as the node sends them; callers convert.
 */

interface EthTransaction {
  hash: string;
  from: string;
  /** null for contract creations. */
  to: string | null;
  value: string;
  input: string;
  /** null while pending. */
  blockNumber: string | null;
}

interface EthReceipt {
  transactionHash: string;
  blockNumber: string;
  /** '0x1' success, '0x0' reverted. */
  status: string;
}

export interface EthRpc {
  chainId(): Promise<string>;
  blockNumber(): Promise<bigint>;
  transaction(hash: string): Promise<EthTransaction | null>;
  receipt(hash: string): Promise<EthReceipt | null>;
}

class EthRpcError extends Error {}

export function createEthRpc(url: string, timeoutMs = 8_000): EthRpc {
  let nextId = 1;
  async function call<T>(method: string, params: unknown[]): Promise<T> {
    const id = nextId++;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new EthRpcError(`${method}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!res.ok) throw new EthRpcError(`${method}: HTTP ${res.status}`);
    const body = (await res.json().catch(() => null)) as {
      result?: T;
      error?: { code: number; message: string };
    } | null;
    if (!body || typeof body !== 'object') throw new EthRpcError(`${method}: not a JSON-RPC answer`);
    if (body.error) throw new EthRpcError(`${method}: ${body.error.message} (${body.error.code})`);
    return body.result as T;
  }
  return {
    chainId: async () => (await call<string>('eth_chainId', [])).toLowerCase(),
    blockNumber: async () => BigInt(await call<string>('eth_blockNumber', [])),
    transaction: (hash) => call<EthTransaction | null>('eth_getTransactionByHash', [hash]),
    receipt: (hash) => call<EthReceipt | null>('eth_getTransactionReceipt', [hash]),
  };
}
