import { createSecretKey } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { AuthUser } from './app-env.ts';
import { UnauthorizedError } from './errors.ts';

const ISSUER = 'berth';
const AUDIENCE = 'berth-api';
/** Access tokens are short; clients keep the session with a refresh token (modules/auth/sessions). */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
/** Short-lived tokens for the notification stream (EventSource cannot send headers, so they go in the URL). */
const STREAM_AUDIENCE: LinkPurpose = 'sse';
export const STREAM_TOKEN_TTL_SECONDS = 60;

/** What an access token says: the user, its role at signing, and the user's token version then (`tv`). */
export type AccessClaims = AuthUser;

/** What a stream token says. */
interface StreamClaims {
  userId: string;
  tokenVersion: number;
}

export interface TokenService {
  sign(claims: AccessClaims): Promise<string>;
  /**
   * What a token says; UnauthorizedError when it is missing, forged, expired or has no token version.
   * Whether that version is still the user's is the caller's check (modules/auth/token-versions.ts).
   */
  verify(token: string): Promise<AccessClaims>;
  /** A 60-second token that opens the notification stream of `userId` and nothing else. */
  signStream(claims: StreamClaims): Promise<string>;
  /** What a stream token says; UnauthorizedError otherwise (access tokens included). */
  verifyStream(token: string): Promise<StreamClaims>;
  /**
   * A short-lived token for a link that cannot carry headers (e.g. an invoice download), bound to one
   * purpose; `claims` are signed with it (readLink gives them back).
   */
  signLink(subject: string, purpose: LinkPurpose, ttlSeconds: number, claims?: LinkClaims): Promise<string>;
  /** The subject of a link token of that purpose; UnauthorizedError otherwise. */
  verifyLink(token: string, purpose: LinkPurpose): Promise<string>;
  /** The subject and signed claims of a link token of that purpose; UnauthorizedError otherwise. */
  readLink(token: string, purpose: LinkPurpose): Promise<{ subject: string; claims: LinkClaims }>;
}

/** What a link token may carry beside its subject (strings and numbers, as signed). */
export type LinkClaims = Record<string, string | number>;

/** What a link token opens; each is its own audience, so one never opens another. */
type LinkPurpose = 'sse' | 'invoice' | 'backup';

export function createTokenService(secret: string): TokenService {
  // A CryptoKey made once: given the secret as bytes or as a KeyObject, jose imports it into WebCrypto
  // again on every sign and verify (some 6% of a signed-in read's CPU). HS256 is HMAC with SHA-256.
  const key = createSecretKey(Buffer.from(secret, 'utf8')).toCryptoKey(
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
  const signLink = (subject: string, purpose: LinkPurpose, ttlSeconds: number, claims: LinkClaims = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(subject)
      .setIssuer(ISSUER)
      .setAudience(purpose)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(key);
  async function readLink(token: string, purpose: LinkPurpose) {
    try {
      const { payload } = await jwtVerify(token, key, {
        issuer: ISSUER,
        audience: purpose,
        algorithms: ['HS256'],
      });
      if (payload.sub) {
        const claims: LinkClaims = {};
        for (const [name, value] of Object.entries(payload))
          if (typeof value === 'string' || typeof value === 'number') claims[name] = value;
        return { subject: payload.sub, claims };
      }
    } catch {}
    throw new UnauthorizedError('Invalid or expired link');
  }
  return {
    sign: (claims) =>
      new SignJWT({
        role: claims.role,
        tv: claims.tokenVersion,
        ...(claims.sessionId !== undefined && { sid: claims.sessionId }),
      })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(claims.id)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
        .sign(key),
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['HS256'],
        });
        const role = payload.role === 'admin' ? 'admin' : 'user';
        // Tokens from before token versions (no `tv`) are refused: their holders sign in again.
        if (!payload.sub || !Number.isSafeInteger(payload.tv)) throw new UnauthorizedError('Invalid token');
        const sessionId = typeof payload.sid === 'string' ? payload.sid : undefined;
        return { id: payload.sub, role, tokenVersion: payload.tv as number, ...(sessionId && { sessionId }) };
      } catch (err) {
        if (err instanceof errors.JWTExpired)
          throw new UnauthorizedError('Session expired, please sign in again');
        throw new UnauthorizedError('Invalid token');
      }
    },
    signStream: ({ userId, tokenVersion }) =>
      signLink(userId, STREAM_AUDIENCE, STREAM_TOKEN_TTL_SECONDS, { tv: tokenVersion }),
    async verifyStream(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          issuer: ISSUER,
          audience: STREAM_AUDIENCE,
          algorithms: ['HS256'],
        });
        if (payload.sub && Number.isSafeInteger(payload.tv))
          return { userId: payload.sub, tokenVersion: payload.tv as number };
      } catch {}
      throw new UnauthorizedError('Invalid or expired stream token');
    },
    signLink,
    verifyLink: async (token, purpose) => (await readLink(token, purpose)).subject,
    readLink,
  };
}
