import { describe, expect, it } from 'vitest';
import {
  type Eip1193Provider,
  encodeOrderRef,
  METAMASK_CHAINS,
  METAMASK_INSUFFICIENT_FUNDS_TEXT,
  METAMASK_INVALID_RECEIVER_TEXT,
  METAMASK_NETWORK_TEXT,
  METAMASK_NO_ACCOUNT_TEXT,
  METAMASK_NOT_DETECTED_TEXT,
  METAMASK_REJECTED_TEXT,
  MetaMaskError,
  metaMaskFailedText,
  payWithMetaMask,
  providerErrorCodes,
} from './metamask.ts';

const RECEIVER = '0x1234567890abcdef1234567890ABCDEF12345678';
const ACCOUNT = '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const TX_HASH = `0x${'ab'.repeat(32)}`;
const SEPOLIA = '0xaa36a7';
const POLYGON = '0x89';

type Call = { method: string; params?: unknown[] };
/** An answer to one request: a value, or `{ error }` to reject with it. */
type Answer = unknown | { error: unknown };
/** Answers to successive calls of one method, in turn (the last one repeats). */
type Sequence = { sequence: Answer[] };
type Script = Record<string, Answer | Sequence>;

const inTurn = (...answers: Answer[]): Sequence => ({ sequence: answers });
const isSequence = (value: unknown): value is Sequence =>
  typeof value === 'object' && value !== null && 'sequence' in value && Array.isArray(value.sequence);

/** A provider's error the way MetaMask shapes them: an Error with a numeric code (and data). */
const rpcError = (code: number, message: string, data?: unknown) =>
  Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });

/**
 * A fake EIP-1193 provider: records every call and answers from `script` by method (`inTurn` for
 * answers that change from call to call). Unscripted methods reject like MetaMask (4200).
 */
function fakeProvider(script: Script) {
  const calls: Call[] = [];
  const seen: Record<string, number> = {};
  const provider: Eip1193Provider = {
    async request({ method, params }) {
      calls.push(params === undefined ? { method } : { method, params });
      if (!(method in script)) throw rpcError(4200, `Unsupported method: ${method}`);
      const scripted = script[method];
      const index = seen[method] ?? 0;
      seen[method] = index + 1;
      const answer = isSequence(scripted)
        ? scripted.sequence[Math.min(index, scripted.sequence.length - 1)]
        : scripted;
      if (typeof answer === 'object' && answer !== null && 'error' in answer) throw answer.error;
      return answer;
    },
  };
  return { provider, calls, methods: () => calls.map((call) => call.method) };
}

/** A wallet on `current` with one account that sends the transaction. */
const wallet = (current: string, overrides: Script = {}) =>
  fakeProvider({
    eth_requestAccounts: [ACCOUNT],
    eth_chainId: current,
    wallet_switchEthereumChain: null,
    wallet_addEthereumChain: null,
    eth_sendTransaction: TX_HASH,
    ...overrides,
  });

const pay = (
  provider: Eip1193Provider | undefined,
  overrides: { receiver?: string; chainId?: string } = {},
) =>
  payWithMetaMask({
    ethereum: provider,
    receiver: RECEIVER,
    chainId: SEPOLIA,
    orderRef: 'order-42',
    ...overrides,
  });

/** The MetaMaskError `promise` rejects with. */
async function failure(promise: Promise<unknown>): Promise<MetaMaskError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(MetaMaskError);
  return error as MetaMaskError;
}

describe('payWithMetaMask: the happy paths', () => {
  it('on the right chain connects, sends the zero-value transaction and returns its hash', async () => {
    const fake = wallet(SEPOLIA);
    await expect(pay(fake.provider)).resolves.toEqual({ from: ACCOUNT, txHash: TX_HASH, chainId: SEPOLIA });
    expect(fake.calls).toEqual([
      { method: 'eth_requestAccounts' },
      { method: 'eth_chainId' },
      {
        method: 'eth_sendTransaction',
        params: [{ from: ACCOUNT, to: RECEIVER, value: '0x0', data: '0x6f726465722d3432' }],
      },
    ]);
  });

  it('compares chain ids case-insensitively', async () => {
    const fake = wallet('0xAA36A7');
    await expect(pay(fake.provider, { chainId: '0xAa36a7' })).resolves.toMatchObject({ chainId: SEPOLIA });
    expect(fake.methods()).not.toContain('wallet_switchEthereumChain');
  });

  it('switches a wallet on another chain first', async () => {
    const fake = wallet('0x1');
    await expect(pay(fake.provider, { chainId: POLYGON })).resolves.toEqual({
      from: ACCOUNT,
      txHash: TX_HASH,
      chainId: POLYGON,
    });
    expect(fake.calls.slice(1, 3)).toEqual([
      { method: 'eth_chainId' },
      { method: 'wallet_switchEthereumChain', params: [{ chainId: POLYGON }] },
    ]);
    expect(fake.methods()).toEqual([
      'eth_requestAccounts',
      'eth_chainId',
      'wallet_switchEthereumChain',
      'eth_sendTransaction',
    ]);
  });

  it.each([
    ['a 4902 error', rpcError(4902, 'Unrecognized chain ID "0xaa36a7".')],
    [
      'a 4902 nested in data.originalError (mobile)',
      rpcError(-32603, 'Internal JSON-RPC error.', {
        originalError: { code: 4902, message: 'Unrecognized chain' },
      }),
    ],
  ])('on %s adds the chain, then switches again', async (_case, unknownChain) => {
    const fake = wallet('0x1', { wallet_switchEthereumChain: inTurn({ error: unknownChain }, null) });
    await expect(pay(fake.provider)).resolves.toMatchObject({ txHash: TX_HASH, chainId: SEPOLIA });
    expect(fake.calls.slice(2, 5)).toEqual([
      { method: 'wallet_switchEthereumChain', params: [{ chainId: SEPOLIA }] },
      { method: 'wallet_addEthereumChain', params: [METAMASK_CHAINS[SEPOLIA]] },
      { method: 'wallet_switchEthereumChain', params: [{ chainId: SEPOLIA }] },
    ]);
    expect(fake.methods().at(-1)).toBe('eth_sendTransaction');
  });

  it('adds Polygon with its parameters from the field notes', async () => {
    const fake = wallet('0x1', {
      wallet_switchEthereumChain: inTurn({ error: rpcError(4902, 'Unrecognized') }, null),
    });
    await pay(fake.provider, { chainId: POLYGON });
    expect(fake.calls.find((call) => call.method === 'wallet_addEthereumChain')?.params).toEqual([
      {
        chainId: '0x89',
        chainName: 'Polygon Mainnet',
        nativeCurrency: { name: 'POL', symbol: 'POL', decimals: 18 },
        rpcUrls: ['https://polygon-rpc.com'],
        blockExplorerUrls: ['https://polygonscan.com'],
      },
    ]);
  });
});

describe('METAMASK_CHAINS', () => {
  it('holds Sepolia and Polygon Mainnet', () => {
    expect(METAMASK_CHAINS).toEqual({
      '0xaa36a7': {
        chainId: '0xaa36a7',
        chainName: 'Sepolia',
        nativeCurrency: { name: 'Sepolia Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: ['https://ethereum-sepolia-rpc.publicnode.com'],
        blockExplorerUrls: ['https://sepolia.etherscan.io'],
      },
      '0x89': expect.objectContaining({ chainId: '0x89', chainName: 'Polygon Mainnet' }),
    });
  });
});

describe('payWithMetaMask: the data field', () => {
  it.each([
    ['order-42', '0x6f726465722d3432'],
    ['', '0x'],
    ['A', '0x41'],
    // UTF-8, not UTF-16: é is c3 a9, € is e2 82 ac.
    ['é€', '0xc3a9e282ac'],
    ['ord_01JX:pro/yearly', '0x6f72645f30314a583a70726f2f796561726c79'],
  ])('carries %j as %s', async (orderRef, data) => {
    expect(encodeOrderRef(orderRef)).toBe(data);
    const fake = wallet(SEPOLIA);
    await payWithMetaMask({ ethereum: fake.provider, receiver: RECEIVER, chainId: SEPOLIA, orderRef });
    const sent = fake.calls.find((call) => call.method === 'eth_sendTransaction')?.params?.[0];
    expect(sent).toEqual({ from: ACCOUNT, to: RECEIVER, value: '0x0', data });
  });
});

describe('payWithMetaMask: failures and their texts', () => {
  it('without a provider: not detected', async () => {
    const error = await failure(pay(undefined));
    expect(error.code).toBe('not_detected');
    expect(error.message).toBe('MetaMask not detected. Please install MetaMask to pay with crypto.');
    expect(error.message).toBe(METAMASK_NOT_DETECTED_TEXT);
  });

  it.each([
    '',
    '0x123',
    '1234567890abcdef1234567890abcdef1234567890',
    '0x1234567890abcdef1234567890abcdef1234567g',
    '0x1234567890abcdef1234567890abcdef123456789',
    ` ${RECEIVER}`,
  ])('with the receiver %j: invalid receiver, before asking the wallet anything', async (receiver) => {
    const fake = wallet(SEPOLIA);
    const error = await failure(pay(fake.provider, { receiver }));
    expect(error.code).toBe('invalid_receiver');
    expect(error.message).toBe('Invalid receiver address. Please contact support.');
    expect(error.message).toBe(METAMASK_INVALID_RECEIVER_TEXT);
    expect(fake.calls).toEqual([]);
  });

  it.each([[[]], [null], [[42]]])(
    'when eth_requestAccounts answers %j: no account connected',
    async (accounts) => {
      const fake = wallet(SEPOLIA, { eth_requestAccounts: accounts });
      const error = await failure(pay(fake.provider));
      expect(error.code).toBe('no_account');
      expect(error.message).toBe('No account connected in MetaMask.');
      expect(error.message).toBe(METAMASK_NO_ACCOUNT_TEXT);
      expect(fake.methods()).toEqual(['eth_requestAccounts']);
    },
  );

  it('when the user refuses to connect (4001): rejected', async () => {
    const fake = wallet(SEPOLIA, {
      eth_requestAccounts: { error: rpcError(4001, 'User rejected the request.') },
    });
    const error = await failure(pay(fake.provider));
    expect(error.code).toBe('rejected');
    expect(error.message).toBe(METAMASK_REJECTED_TEXT);
    expect(fake.methods()).toEqual(['eth_requestAccounts']);
  });

  it('when connecting fails otherwise: the generic text with the message', async () => {
    const fake = wallet(SEPOLIA, {
      eth_requestAccounts: {
        error: rpcError(-32002, "Request of type 'wallet_requestPermissions' already pending"),
      },
    });
    const error = await failure(pay(fake.provider));
    expect(error.code).toBe('failed');
    expect(error.message).toBe(
      "MetaMask payment failed: Request of type 'wallet_requestPermissions' already pending",
    );
  });

  it.each([
    ['the switch fails', { wallet_switchEthereumChain: { error: rpcError(-32603, 'Internal error') } }],
    [
      'the user refuses the switch',
      { wallet_switchEthereumChain: { error: rpcError(4001, 'User rejected') } },
    ],
    [
      'adding the chain fails',
      {
        wallet_switchEthereumChain: { error: rpcError(4902, 'Unrecognized chain') },
        wallet_addEthereumChain: { error: rpcError(4001, 'User rejected') },
      },
    ],
    [
      'the switch after adding fails',
      {
        wallet_switchEthereumChain: inTurn(
          { error: rpcError(4902, 'Unrecognized chain') },
          { error: rpcError(-32603, 'x') },
        ),
      },
    ],
    ['eth_chainId fails', { eth_chainId: { error: rpcError(-32603, 'Internal error') } }],
  ])('when %s: could not switch or add the network, nothing sent', async (_case, overrides) => {
    const fake = wallet('0x1', overrides);
    const error = await failure(pay(fake.provider));
    expect(error.code).toBe('network');
    expect(error.message).toBe('Could not switch or add the network in MetaMask.');
    expect(error.message).toBe(METAMASK_NETWORK_TEXT);
    expect(fake.methods()).not.toContain('eth_sendTransaction');
  });

  it('does not add a chain it has no parameters for (4902 on another chain): network', async () => {
    const fake = wallet('0x1', {
      wallet_switchEthereumChain: { error: rpcError(4902, 'Unrecognized chain') },
    });
    const error = await failure(pay(fake.provider, { chainId: '0x2105' }));
    expect(error.code).toBe('network');
    expect(fake.methods()).not.toContain('wallet_addEthereumChain');
  });

  it('when the user rejects the transaction (4001): the exact spec text', async () => {
    const fake = wallet(SEPOLIA, {
      eth_sendTransaction: {
        error: rpcError(4001, 'MetaMask Tx Signature: User denied transaction signature.'),
      },
    });
    const error = await failure(pay(fake.provider));
    expect(error.code).toBe('rejected');
    expect(error.message).toBe('Transaction rejected in MetaMask.');
  });

  it.each([
    ['-32000 with the message on top', rpcError(-32000, 'insufficient funds for gas * price + value')],
    [
      '-32603 with the message in data',
      rpcError(-32603, 'Internal JSON-RPC error.', {
        code: -32000,
        message: 'Insufficient funds for gas * price + value: balance 0',
      }),
    ],
    [
      '-32603 with the message in data.originalError',
      rpcError(-32603, 'Internal JSON-RPC error.', {
        originalError: { code: -32000, message: 'insufficient funds for intrinsic transaction cost' },
      }),
    ],
  ])('on insufficient funds (%s): the gas text', async (_case, thrown) => {
    const fake = wallet(SEPOLIA, { eth_sendTransaction: { error: thrown } });
    const error = await failure(pay(fake.provider));
    expect(error.code).toBe('insufficient_funds');
    expect(error.message).toBe('Insufficient funds for gas. Add funds to your wallet and try again.');
    expect(error.message).toBe(METAMASK_INSUFFICIENT_FUNDS_TEXT);
    expect(error.cause).toBe(thrown);
  });

  it.each([
    [rpcError(4100, 'The requested account and/or method has not been authorized by the user.')],
    [rpcError(-32603, 'Internal JSON-RPC error.')],
    [new Error('Network request failed')],
  ])('on any other error (%s): the generic text with the message', async (thrown) => {
    const fake = wallet(SEPOLIA, { eth_sendTransaction: { error: thrown } });
    const error = await failure(pay(fake.provider));
    expect(error.code).toBe('failed');
    expect(error.message).toBe(`MetaMask payment failed: ${thrown.message}`);
    expect(error.message).toBe(metaMaskFailedText(thrown.message));
  });

  it('names something thrown without a message', async () => {
    const fake = wallet(SEPOLIA, { eth_sendTransaction: { error: 'boom' } });
    expect((await failure(pay(fake.provider))).message).toBe('MetaMask payment failed: boom');
    const silent = wallet(SEPOLIA, { eth_sendTransaction: { error: {} } });
    expect((await failure(pay(silent.provider))).message).toBe('MetaMask payment failed: Unknown error');
  });

  it('fails when the wallet returns no transaction hash', async () => {
    const fake = wallet(SEPOLIA, { eth_sendTransaction: null });
    const error = await failure(pay(fake.provider));
    expect(error.code).toBe('failed');
    expect(error.message).toMatch(/^MetaMask payment failed: /);
  });
});

describe('providerErrorCodes', () => {
  it('reads the code on top and the ones nested in data and data.originalError', () => {
    expect(providerErrorCodes(rpcError(4001, 'x'))).toEqual([4001]);
    expect(
      providerErrorCodes(rpcError(-32603, 'x', { code: -32000, originalError: { code: 4902 } })),
    ).toEqual([-32603, -32000, 4902]);
    expect(providerErrorCodes('nope')).toEqual([]);
  });
});
