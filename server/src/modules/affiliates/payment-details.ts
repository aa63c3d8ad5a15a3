// How an affiliate is paid: the details each payout method needs, checked with the spec's messages,
// and kept encrypted (the admin reads them to pay a payout).
import { EMAIL_PATTERN } from '@berth/openapi/rules';
import type { AffiliateRow } from '../../db/tables/affiliates.ts';
import type { Cipher } from '../../lib/crypto.ts';
import { ValidationError } from '../../lib/errors.ts';
import {
  BANK_REQUIRED,
  CRYPTO_REQUIRED,
  INVALID_PAYPAL_EMAIL,
  PAYPAL_EMAIL_REQUIRED,
} from './affiliate-program.ts';
import type { BankDetails, CryptoWallet, PaymentDetailsBody } from './affiliates.schemas.ts';

export interface StoredDetails {
  paypalEmail?: string | null;
  bankDetails?: BankDetails | null;
  cryptoWallet?: CryptoWallet | null;
}

/** The payout details a method needs, checked with the spec's messages, as stored. */
export function detailsFor(body: PaymentDetailsBody, fallbackEmail?: string): StoredDetails {
  switch (body.paymentMethod) {
    case 'paypal': {
      const email = body.paypalEmail || fallbackEmail;
      if (!email)
        throw new ValidationError(PAYPAL_EMAIL_REQUIRED, {
          fieldErrors: { paypalEmail: [PAYPAL_EMAIL_REQUIRED] },
        });
      if (!EMAIL_PATTERN.test(email))
        throw new ValidationError(INVALID_PAYPAL_EMAIL, {
          fieldErrors: { paypalEmail: [INVALID_PAYPAL_EMAIL] },
        });
      return { paypalEmail: email };
    }
    case 'bank': {
      const b =
        typeof body.bankDetails === 'string' ? { details: body.bankDetails } : (body.bankDetails ?? {});
      const given = Object.values(b).some((v) => typeof v === 'string' && v.length > 0);
      const complete =
        Boolean(b.details) || Boolean((b.accountNumber || b.iban) && (b.accountName || b.bankName));
      if (!given || !complete)
        throw new ValidationError(BANK_REQUIRED, { fieldErrors: { bankDetails: [BANK_REQUIRED] } });
      return { bankDetails: b };
    }
    case 'crypto': {
      const w = body.cryptoWallet;
      if (!w?.address)
        throw new ValidationError(CRYPTO_REQUIRED, { fieldErrors: { cryptoWallet: [CRYPTO_REQUIRED] } });
      return { cryptoWallet: w };
    }
  }
}

const DETAILS_CONTEXT = 'affiliate-payment-details';

export interface DetailsVault {
  seal(details: StoredDetails, affiliateUserId: string): string;
  unseal(row: Pick<AffiliateRow, 'payment_details' | 'user_id'>): StoredDetails;
}

/** Payment details encrypted at rest, each bound to its affiliate's user (a row copied elsewhere fails). */
export function createDetailsVault(cipher: Cipher): DetailsVault {
  return {
    seal: (details, affiliateUserId) =>
      cipher.encrypt(JSON.stringify(details), `${DETAILS_CONTEXT}:${affiliateUserId}`),
    unseal: (row) =>
      JSON.parse(cipher.decrypt(row.payment_details, `${DETAILS_CONTEXT}:${row.user_id}`)) as StoredDetails,
  };
}

/** The details of a row as the API shows them. */
export function shownDetails(details: StoredDetails) {
  return {
    paypalEmail: details.paypalEmail ?? null,
    bankDetails: details.bankDetails ?? null,
    cryptoWallet: details.cryptoWallet ?? null,
  };
}
