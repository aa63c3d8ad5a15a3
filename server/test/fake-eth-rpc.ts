import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A transaction as eth_getTransactionByHash answers it (hex quantities). */
export interface FakeEthTransaction {
  hash: string;
  from: string;
  to: string | null;
  value: string;
  input: string;
  /** null: pending (not mined). */
  blockNumber: string | null;
}

export interface FakeEthReceipt {
  transactionHash: string;
  blockNumber: string;
  /** '0x1' success, '0x0' reverted. */
  status: string;
}

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/**
 * A local Ethereum JSON-RPC node for tests: eth_chainId, eth_blockNumber, eth_getTransactionByHash and
 * eth_getTransactionReceipt, single requests and batches (arrays, as viem sends them). Chain id, head block,
 * transactions and receipts are set by the test; `failing` makes every call answer HTTP 500.
 */
export async function startFakeEthRpc(options: { chainId?: string; blockNumber?: number } = {}) {
  const state = {
    chainId: options.chainId ?? '0xaa36a7',
    blockNumber: BigInt(options.blockNumber ?? 1000),
    transactions: new Map<string, FakeEthTransaction>(),
    receipts: new Map<string, FakeEthReceipt>(),
    failing: false,
    /** Every method called, in order. */
    calls: [] as string[],
  };

  function answer(request: unknown): object {
    const r = (request ?? {}) as { id?: unknown; method?: unknown; params?: unknown };
    const id = r.id ?? null;
    const params = Array.isArray(r.params) ? r.params : [];
    const ok = (result: unknown) => ({ jsonrpc: '2.0', id, result });
    if (typeof r.method !== 'string')
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
    state.calls.push(r.method);
    const hash = String(params[0] ?? '').toLowerCase();
    switch (r.method) {
      case 'eth_chainId':
        return ok(state.chainId);
      case 'eth_blockNumber':
        return ok(hex(state.blockNumber));
      case 'eth_getTransactionByHash':
        return ok(state.transactions.get(hash) ?? null);
      case 'eth_getTransactionReceipt':
        return ok(state.receipts.get(hash) ?? null);
      default:
        return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method ${r.method} not found` } };
    }
  }

  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (state.failing) return void res.writeHead(500).end('node down');
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(
          JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
        );
      }
      const result = Array.isArray(parsed) ? parsed.map(answer) : answer(parsed);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(result));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    state,
    /**
     * Puts a transaction on the fake chain. `minedAt` (a block number) also adds its receipt (status '0x1'
     * unless `status` says otherwise); without it the transaction is pending.
     */
    addTransaction(
      tx: Omit<FakeEthTransaction, 'blockNumber' | 'value' | 'input'> & { value?: string; input?: string },
      mined?: { block: number; status?: string },
    ) {
      const hash = tx.hash.toLowerCase();
      state.transactions.set(hash, {
        value: '0x0',
        input: '0x',
        ...tx,
        hash,
        blockNumber: mined ? hex(mined.block) : null,
      });
      if (mined)
        state.receipts.set(hash, {
          transactionHash: hash,
          blockNumber: hex(mined.block),
          status: mined.status ?? '0x1',
        });
      else state.receipts.delete(hash);
    },
    setBlockNumber(n: number) {
      state.blockNumber = BigInt(n);
    },
    reset() {
      state.transactions.clear();
      state.receipts.clear();
      state.calls.length = 0;
      state.failing = false;
      state.chainId = options.chainId ?? '0xaa36a7';
      state.blockNumber = BigInt(options.blockNumber ?? 1000);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type FakeEthRpc = Awaited<ReturnType<typeof startFakeEthRpc>>;
