/** localStorage key of the affiliate code a visitor arrived with (spec customer-area §3). */
export const REFERRAL_STORAGE_KEY = 'referral_code';

export function readStoredReferral(): string | null {
  try {
    return localStorage.getItem(REFERRAL_STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeReferral(code: string): void {
  try {
    localStorage.setItem(REFERRAL_STORAGE_KEY, code.toUpperCase());
  } catch {
    // Without storage the code still travels in this visit's URL.
  }
}

/** The code to send: the `ref` query parameter first, else the stored one. */
export function referralToSend(refParam: string | null): string | undefined {
  const code = refParam?.trim() || readStoredReferral()?.trim();
  return code ? code : undefined;
}
