import { newReference } from './error-reference.ts';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An incoming id is kept only when it is a short token that cannot forge log lines or headers. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{5,63}$/;

/** The request's id: the caller's X-Request-Id when it is a safe short token, else a fresh one. */
export function requestIdOf(incoming: string | undefined): string {
  return incoming !== undefined && SAFE_REQUEST_ID.test(incoming) ? incoming : newReference();
}
