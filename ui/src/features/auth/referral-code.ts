/** localStorage key of the affiliate code a visitor arrived with. */
const REFERRAL_STORAGE_KEY = 'referral_code';

/** When the code was stored: like the referral cookie, it counts for 30 days. */
const STORED_AT_KEY = 'referral_code_at';
const ATTRIBUTION_MS = 30 * 24 * 60 * 60 * 1000;

function readStoredReferral(): string | null {
  try {
    const at = Number(localStorage.getItem(STORED_AT_KEY));
    if (Number.isFinite(at) && at > 0 && Date.now() - at > ATTRIBUTION_MS) return null;
    return localStorage.getItem(REFERRAL_STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeReferral(code: string): void {
  try {
    localStorage.setItem(REFERRAL_STORAGE_KEY, code.trim().toUpperCase());
    localStorage.setItem(STORED_AT_KEY, String(Date.now()));
  } catch {
    // Without storage the code still travels in this visit's URL.
  }
}

/** The code to send: the `ref` query parameter first, else the stored one. */
export function referralToSend(refParam: string | null): string | undefined {
  const code = refParam?.trim() || readStoredReferral()?.trim();
  return code ? code : undefined;
}
