import { errors, jwtVerify, SignJWT } from 'jose';
import type { AuthUser } from './create-router.ts';
import { UnauthorizedError } from './errors.ts';

const ISSUER = 'berth';
const AUDIENCE = 'berth-api';
const ACCESS_TOKEN_TTL = '7d';

export interface TokenService {
  sign(user: AuthUser): Promise<string>;
  /** The user a token speaks for; UnauthorizedError when it is missing, forged or expired. */
  verify(token: string): Promise<AuthUser>;
}

export function createTokenService(secret: string): TokenService {
  const key = new TextEncoder().encode(secret);
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
  };
}
