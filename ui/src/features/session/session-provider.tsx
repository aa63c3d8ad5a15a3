import type { AuthResult, User } from '@berth/openapi';
import {
  createContext,
  type ReactNode,
  Suspense,
  useCallback,
  useDeferredValue,
  useEffect,
  useMemo,
  useState,
} from 'react';
import { useNavigate } from 'react-router';
import { isUnauthorized } from '../../api/api-error.ts';
import { authKeys } from '../../api/query-keys.ts';
import { lazyWithQueries, useQueryLayer } from '../../api/query-layer.ts';
import { useApiClient } from '../../api/use-api-client.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import type { TokenStore } from '../../platform/platform.ts';
import type { ProfileState } from './profile-query.tsx';

/**
 * loading: reading the stored token or loading the profile; error: the profile load failed for a
 * reason other than 401 (the token is kept and the user can retry).
 */
type SessionStatus = 'loading' | 'anonymous' | 'authenticated' | 'error';

export interface SessionContextValue {
  status: SessionStatus;
  user: User | null;
  /** True while the profile is being (re)loaded. */
  isFetching: boolean;
  signIn(result: AuthResult): Promise<void>;
  logout(): Promise<void>;
  /** Reloads the profile (retry after an error, or after something changed on the server). */
  refresh(): Promise<void>;
}

export const SessionContext = createContext<SessionContextValue | null>(null);

const NO_PROFILE: ProfileState = {
  data: undefined,
  error: null,
  isError: false,
  isFetching: false,
  refetch: async () => undefined,
};

// With the query layer's code: a visitor without a session never downloads it.
const ProfileQuery = lazyWithQueries(async () => (await import('./profile-query.tsx')).ProfileQuery);

/** Fetches the code of a stored session's profile query and the query layer's (before a hydration). */
export const preloadProfileQuery = (): Promise<void> => ProfileQuery.preload();

export function SessionProvider({ tokenStore, children }: { tokenStore: TokenStore; children: ReactNode }) {
  const client = useApiClient();
  const queries = useQueryLayer();
  const navigate = useNavigate();
  const toast = useToast();
  // undefined until the store has been read (at once when the host can peek into it).
  const [token, setToken] = useState<string | null | undefined>(() => tokenStore.peek?.());
  // The user the last sign-in in this page answered with.
  const [signedInUser, setSignedInUser] = useState<User | null>(null);

  useEffect(() => {
    if (tokenStore.peek) return;
    let active = true;
    tokenStore.get().then(
      (stored) => active && setToken(stored),
      () => active && setToken(null),
    );
    return () => {
      active = false;
    };
  }, [tokenStore]);

  // The profile query's state while a token is stored; at first, the profile the cache holds already
  // (a page the server rendered with it, whose query layer main.tsx loaded before the hydration).
  const [profile, setProfile] = useState<ProfileState>(() => {
    const cached = token ? queries.peek()?.getQueryData<User>(authKeys.profile()) : undefined;
    return { ...NO_PROFILE, data: cached };
  });

  const clearSession = useCallback(async () => {
    await tokenStore.clear();
    setSignedInUser(null);
    setProfile(NO_PROFILE);
    setToken(null);
    queries.peek()?.clear();
  }, [queries, tokenStore]);

  const profileUnauthorized = isUnauthorized(profile.error);
  useEffect(() => {
    if (profileUnauthorized) void clearSession();
  }, [profileUnauthorized, clearSession]);

  const signIn = useCallback(
    async ({ token: newToken, refreshToken, user }: AuthResult) => {
      await tokenStore.set(newToken, refreshToken);
      (await queries.ready()).setQueryData(authKeys.profile(), user);
      setSignedInUser(user);
      setProfile(NO_PROFILE);
      setToken(newToken);
    },
    [queries, tokenStore],
  );

  const logout = useCallback(async () => {
    // The server revokes this session's refresh tokens; signing out here does not wait on it.
    const refreshToken = await tokenStore.getRefreshToken().catch(() => null);
    if (refreshToken) void client.POST('/api/auth/logout', { body: { refreshToken } }).catch(() => {});
    await clearSession();
    navigate('/login', { replace: true });
    toast.success('Logged out successfully');
  }, [clearSession, navigate, toast, client, tokenStore]);

  // A stored session's profile arriving from the server signs the user in, and the whole signed-in
  // screen renders. As a deferred value that render is a transition, which React cuts into short tasks
  // (the query's own update is synchronous), so the page answers input meanwhile. The user a sign-in
  // has just answered with (the same object in the cache until a reload changes it) counts at once:
  // the sign-in form goes straight to the signed-in screen, with no loading screen in between (it is
  // the profile until the profile query reports).
  const current = profile.data ?? signedInUser ?? undefined;
  const deferredProfile = useDeferredValue(current);
  const user = current !== undefined && current === signedInUser ? current : deferredProfile;

  const { refetch } = profile;
  const refresh = useCallback(async () => {
    await refetch();
  }, [refetch]);

  const status: SessionStatus =
    token === undefined
      ? 'loading'
      : token === null
        ? 'anonymous'
        : user
          ? 'authenticated'
          : profile.isError && !profileUnauthorized
            ? 'error'
            : 'loading';

  const value = useMemo<SessionContextValue>(
    () => ({
      status,
      user: status === 'authenticated' ? (user ?? null) : null,
      isFetching: profile.isFetching,
      signIn,
      logout,
      refresh,
    }),
    [status, user, profile.isFetching, signIn, logout, refresh],
  );

  return (
    <SessionContext.Provider value={value}>
      {children}
      {typeof token === 'string' && (
        <Suspense fallback={null}>
          <ProfileQuery onChange={setProfile} />
        </Suspense>
      )}
    </SessionContext.Provider>
  );
}
