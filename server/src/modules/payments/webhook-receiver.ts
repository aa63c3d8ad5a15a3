/** Takes a provider's webhook delivery: verifies it, stores the event once and applies it. */
export interface WebhookReceiver {
  /**
   * `rawBody` is the body exactly as received (signatures cover its bytes). Throws ValidationError when
   * the signature is missing or wrong; answers `duplicate` when the event had been stored before.
   */
  receive(rawBody: string, headers: Headers): Promise<{ duplicate: boolean }>;
}
