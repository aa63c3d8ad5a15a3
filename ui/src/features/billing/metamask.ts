/**
 * The MetaMask browser flow:
 * a zero-value transaction to the receiver address whose data carries the order reference; support
 * validates it by hand afterwards. No React here: the caller passes the provider (`window.ethereum`
 * or one found through EIP-6963) and calls this only from a user's click.
 */

/** An EIP-1193 provider, as much of it as the flow needs. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** The parameter of `wallet_addEthereumChain` (EIP-3085). */
export interface AddEthereumChainParameter {
  chainId: string;
  chainName: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
  rpcUrls: string[];
  blockExplorerUrls: string[];
}

export type MetaMaskChainId = '0xaa36a7' | '0x89';

/** The chains the flow adds to MetaMask when the wallet does not know them (4902). */
export const METAMASK_CHAINS: Record<MetaMaskChainId, AddEthereumChainParameter> = {
  '0xaa36a7': {
    chainId: '0xaa36a7',
    chainName: 'Sepolia',
    nativeCurrency: { name: 'Sepolia Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: ['https://ethereum-sepolia-rpc.publicnode.com'],
    blockExplorerUrls: ['https://sepolia.etherscan.io'],
  },
  '0x89': {
    chainId: '0x89',
    chainName: 'Polygon Mainnet',
    nativeCurrency: { name: 'POL', symbol: 'POL', decimals: 18 },
    rpcUrls: ['https://polygon-rpc.com'],
    blockExplorerUrls: ['https://polygonscan.com'],
  },
};

/** MetaMask texts. */
export const METAMASK_NOT_DETECTED_TEXT =
  'MetaMask not detected. Please install MetaMask to pay with crypto.';
export const METAMASK_INVALID_RECEIVER_TEXT = 'Invalid receiver address. Please contact support.';
export const METAMASK_NETWORK_TEXT = 'Could not switch or add the network in MetaMask.';
export const METAMASK_NO_ACCOUNT_TEXT = 'No account connected in MetaMask.';
export const METAMASK_REJECTED_TEXT = 'Transaction rejected in MetaMask.';
export const METAMASK_INSUFFICIENT_FUNDS_TEXT =
  'Insufficient funds for gas. Add funds to your wallet and try again.';
export const metaMaskFailedText = (message: string) => `MetaMask payment failed: ${message}`;

/** EIP-1193 / MetaMask error codes the flow reacts to. */
const USER_REJECTED_CODE = 4001;
const UNRECOGNIZED_CHAIN_CODE = 4902;

export type MetaMaskErrorCode =
  | 'not_detected'
  | 'invalid_receiver'
  | 'network'
  | 'no_account'
  | 'rejected'
  | 'insufficient_funds'
  | 'failed';

/** A failure of the flow; `message` is the text to show the user. */
export class MetaMaskError extends Error {
  readonly code: MetaMaskErrorCode;

  constructor(code: MetaMaskErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MetaMaskError';
    this.code = code;
  }
}

export interface PayWithMetaMaskOptions {
  /** The wallet's provider; undefined when none is installed. */
  ethereum: Eip1193Provider | undefined;
  /** Where the zero-value transaction goes (the platform's address). */
  receiver: string;
  /** The chain to pay on, as hex (`0xaa36a7`, `0x89`). */
  chainId: string;
  /** The order reference, sent UTF-8 encoded as the transaction's data. */
  orderRef: string;
}

export interface MetaMaskPayment {
  from: string;
  txHash: string;
  chainId: string;
}

const RECEIVER_PATTERN = /^0x[0-9a-fA-F]{40}$/;

const isReceiverAddress = (address: string) => RECEIVER_PATTERN.test(address);

/** `0x` and the hex of the UTF-8 bytes of `text`. */
export function encodeOrderRef(text: string): string {
  let hex = '0x';
  for (const byte of new TextEncoder().encode(text)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/** The error and the errors it wraps (`data`, `data.originalError`, `cause`), outermost first. */
function errorLayers(error: unknown): Record<string, unknown>[] {
  const layers: Record<string, unknown>[] = [];
  let queue: unknown[] = [error];
  while (queue.length > 0 && layers.length < 8) {
    const next: unknown[] = [];
    for (const layer of queue) {
      if (!isRecord(layer) || layers.includes(layer)) continue;
      layers.push(layer);
      next.push(layer.data, layer.cause);
      if (isRecord(layer.data)) next.push(layer.data.originalError);
    }
    queue = next;
  }
  return layers;
}

/**
 * The provider's numeric error codes, outermost first (mobile builds of MetaMask nest the real one
 * in `error.data.originalError.code`).
 */
export function providerErrorCodes(error: unknown): number[] {
  return errorLayers(error).flatMap((layer) => (typeof layer.code === 'number' ? [layer.code] : []));
}

const hasCode = (error: unknown, code: number) => providerErrorCodes(error).includes(code);

const messagesOf = (error: unknown): string[] =>
  errorLayers(error).flatMap((layer) =>
    typeof layer.message === 'string' && layer.message !== '' ? [layer.message] : [],
  );

/** The provider's own message, or a description of what was thrown. */
function messageOf(error: unknown): string {
  const [first] = messagesOf(error);
  if (first) return first;
  if (typeof error === 'string' && error !== '') return error;
  return 'Unknown error';
}

/** 4001 → rejected; "insufficient funds" (-32603/-32000, often nested) → gas text; else the message. */
function requestFailure(error: unknown): MetaMaskError {
  if (error instanceof MetaMaskError) return error;
  if (hasCode(error, USER_REJECTED_CODE))
    return new MetaMaskError('rejected', METAMASK_REJECTED_TEXT, { cause: error });
  if (messagesOf(error).some((message) => /insufficient funds/i.test(message)))
    return new MetaMaskError('insufficient_funds', METAMASK_INSUFFICIENT_FUNDS_TEXT, { cause: error });
  return new MetaMaskError('failed', metaMaskFailedText(messageOf(error)), { cause: error });
}

const networkFailure = (cause: unknown) => new MetaMaskError('network', METAMASK_NETWORK_TEXT, { cause });

/** Chain ids compare as lower-case hex; a number (some wallets) is turned into hex. */
function normalizeChainId(chainId: unknown): string {
  if (typeof chainId === 'number') return `0x${chainId.toString(16)}`;
  if (typeof chainId === 'string') return chainId.trim().toLowerCase();
  return '';
}

const isKnownChain = (chainId: string): chainId is MetaMaskChainId => Object.hasOwn(METAMASK_CHAINS, chainId);

async function requestAccount(ethereum: Eip1193Provider): Promise<string> {
  let accounts: unknown;
  try {
    accounts = await ethereum.request({ method: 'eth_requestAccounts' });
  } catch (error) {
    throw requestFailure(error);
  }
  const [from] = Array.isArray(accounts) ? accounts : [];
  if (typeof from !== 'string' || from === '')
    throw new MetaMaskError('no_account', METAMASK_NO_ACCOUNT_TEXT);
  return from;
}

/** Switches the wallet to `chainId`; on 4902 adds the chain (when it is one of ours) and switches again. */
async function ensureChain(ethereum: Eip1193Provider, chainId: string): Promise<void> {
  let current: unknown;
  try {
    current = await ethereum.request({ method: 'eth_chainId' });
  } catch (error) {
    throw networkFailure(error);
  }
  if (normalizeChainId(current) === chainId) return;

  const switchChain = () => ethereum.request({ method: 'wallet_switchEthereumChain', params: [{ chainId }] });
  try {
    await switchChain();
    return;
  } catch (error) {
    if (!hasCode(error, UNRECOGNIZED_CHAIN_CODE) || !isKnownChain(chainId)) throw networkFailure(error);
  }
  try {
    await ethereum.request({ method: 'wallet_addEthereumChain', params: [METAMASK_CHAINS[chainId]] });
    await switchChain();
  } catch (error) {
    throw networkFailure(error);
  }
}

/**
 * Pays with MetaMask: checks the provider and the receiver, connects an account, moves the wallet to
 * `chainId` and sends `{from, to: receiver, value: 0, data: orderRef}`. Throws a MetaMaskError whose
 * message is the text to show.
 */
export async function payWithMetaMask({
  ethereum,
  receiver,
  chainId,
  orderRef,
}: PayWithMetaMaskOptions): Promise<MetaMaskPayment> {
  if (!ethereum) throw new MetaMaskError('not_detected', METAMASK_NOT_DETECTED_TEXT);
  if (!isReceiverAddress(receiver))
    throw new MetaMaskError('invalid_receiver', METAMASK_INVALID_RECEIVER_TEXT);
  const chain = normalizeChainId(chainId);

  const from = await requestAccount(ethereum);
  await ensureChain(ethereum, chain);

  let txHash: unknown;
  try {
    txHash = await ethereum.request({
      method: 'eth_sendTransaction',
      params: [{ from, to: receiver, value: '0x0', data: encodeOrderRef(orderRef) }],
    });
  } catch (error) {
    throw requestFailure(error);
  }
  if (typeof txHash !== 'string' || txHash === '')
    throw new MetaMaskError('failed', metaMaskFailedText('no transaction hash was returned'));
  return { from, txHash, chainId: chain };
}
