/** Payment success 5 s, payment failed 10 s. */
export const PAYMENT_SUCCESS_REDIRECT_SECONDS = 5;
export const PAYMENT_FAILED_REDIRECT_SECONDS = 10;

/** The `reason` values the payment providers' return URLs carry. */
export type PaymentFailureReason = 'incomplete' | 'server_error' | 'cancelled' | 'other';

export const PAYMENT_FAILURE_TEXTS: Record<PaymentFailureReason, string> = {
  incomplete: 'Payment was not completed. Please try again.',
  server_error: 'A server error occurred while processing your payment.',
  cancelled: 'Payment was cancelled by user.',
  other: 'An error occurred while processing your payment.',
};

const isReason = (value: string): value is PaymentFailureReason =>
  Object.hasOwn(PAYMENT_FAILURE_TEXTS, value);

/**
 * The reason a failed-payment URL names; `fallback` when it names none (/payment-cancelled without a
 * reason means cancelled), and 'other' for any value the spec does not list.
 */
export function failureReason(
  reason: string | null,
  fallback: PaymentFailureReason = 'other',
): PaymentFailureReason {
  if (reason === null || reason === '') return fallback;
  return isReason(reason) ? reason : 'other';
}
