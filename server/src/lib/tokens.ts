import { createSecretKey } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import type { AuthUser } from './create-router.ts';
import { UnauthorizedError } from './errors.ts';

const ISSUER = 'berth';
const AUDIENCE = 'berth-api';
const ACCESS_TOKEN_TTL = '7d';
/** Short-lived tokens for the notification stream (EventSource cannot send headers, so they go in the URL). */
const STREAM_AUDIENCE: LinkPurpose = 'sse';
export const STREAM_TOKEN_TTL_SECONDS = 60;

export interface TokenService {
  sign(user: AuthUser): Promise<string>;
  /** The user a token speaks for; UnauthorizedError when it is missing, forged or expired. */
  verify(token: string): Promise<AuthUser>;
  /** A 60-second token that opens the notification stream of `userId` and nothing else. */
  signStream(userId: string): Promise<string>;
  /** The user id a stream token speaks for; UnauthorizedError otherwise (access tokens included). */
  verifyStream(token: string): Promise<string>;
  /** A short-lived token for a link that cannot carry headers (e.g. an invoice download), bound to one purpose. */
  signLink(subject: string, purpose: LinkPurpose, ttlSeconds: number): Promise<string>;
  /** The subject of a link token of that purpose; UnauthorizedError otherwise. */
  verifyLink(token: string, purpose: LinkPurpose): Promise<string>;
}

/** What a link token opens; each is its own audience, so one never opens another. */
export type LinkPurpose = 'sse' | 'invoice';

export function createTokenService(secret: string): TokenService {
  // A KeyObject made once: jose would otherwise import the raw secret on every sign and verify.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const signLink = (subject: string, purpose: LinkPurpose, ttlSeconds: number) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(subject)
      .setIssuer(ISSUER)
      .setAudience(purpose)
      .setIssuedAt()
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(key);
  async function verifyLink(token: string, purpose: LinkPurpose): Promise<string> {
    try {
      const { payload } = await jwtVerify(token, key, {
        issuer: ISSUER,
        audience: purpose,
        algorithms: ['HS256'],
      });
      if (payload.sub) return payload.sub;
    } catch {}
    throw new UnauthorizedError('Invalid or expired link');
  }
  return {
    sign: (user) =>
      new SignJWT({ role: user.role })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(user.id)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(ACCESS_TOKEN_TTL)
        .sign(key),
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: ['HS256'],
        });
        const role = payload.role === 'admin' ? 'admin' : 'user';
        if (!payload.sub) throw new UnauthorizedError('Invalid token');
        return { id: payload.sub, role };
      } catch (err) {
        if (err instanceof errors.JWTExpired)
          throw new UnauthorizedError('Session expired, please sign in again');
        throw new UnauthorizedError('Invalid token');
      }
    },
    signStream: (userId) => signLink(userId, STREAM_AUDIENCE, STREAM_TOKEN_TTL_SECONDS),
    async verifyStream(token) {
      try {
        return await verifyLink(token, STREAM_AUDIENCE);
      } catch {
        throw new UnauthorizedError('Invalid or expired stream token');
      }
    },
    signLink,
    verifyLink,
  };
}
