import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ApiError, AuthResult, paths } from '@berth/openapi';
import { createApp, type HttpOptions } from '../src/app.ts';
import type { Db } from '../src/db/database.ts';
import { createMemoryMailer } from '../src/lib/mailer.ts';
import { prepareSetupToken } from '../src/modules/auth/first-admin.ts';
import { createServices, type ServicesConfig } from '../src/services.ts';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';

type TestOptions = Partial<ServicesConfig> & HttpOptions;

/** The services on a test database, built by the same composition root as main.ts. */
export function createTestServices(db: Db, overrides: Partial<ServicesConfig> = {}) {
  return createServices({
    db,
    jwtSecret: TEST_JWT_SECRET,
    mailer: createMemoryMailer(),
    avatarsDir: path.join(tmpdir(), 'berth-test-avatars', randomUUID()),
    helpUploadsDir: path.join(tmpdir(), 'berth-test-help-uploads', randomUUID()),
    ...overrides,
  });
}

/**
 * The app on a test database; mail is kept in memory and avatars go to a temp folder (made on upload).
 * Options are the services' configuration and the HTTP layer's own (rate limits, proxies, web app).
 */
export function createTestApp(db: Db, options: TestOptions = {}) {
  const { trustedProxies, webDistDir, rateLimits, sseHeartbeatMs, accessLog, ...config } = options;
  return createApp(createTestServices(db, config), {
    trustedProxies,
    webDistDir,
    rateLimits,
    sseHeartbeatMs,
    accessLog,
  });
}

export type TestApp = ReturnType<typeof createTestApp>;

// The answers of `call` are typed by the contract (openapi.json's generated `paths`), so a test that
// reads a field a response no longer has fails to compile. A path is matched as a test writes it: its
// parameters filled in (a template literal), perhaps with a query.

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type ContractPath = keyof paths;
/** '/api/instances/{id}/backups' → `/api/instances/${string}/backups`. */
type Filled<P extends string> = P extends `${infer Head}{${string}}${infer Tail}`
  ? `${Head}${string}${Filled<Tail>}`
  : P;
/** The operation of `K` for `M`, if the contract has one. */
type OperationOf<K extends ContractPath, M extends Method> = K extends ContractPath
  ? paths[K][Lowercase<M> & keyof paths[K]]
  : never;
/** The contract's paths that `P` (a path as written, parameters filled in) can be, with method `M`. */
type Candidates<P extends string, M extends Method> = {
  [K in ContractPath]: P extends Filled<K> | `${Filled<K>}?${string}`
    ? OperationOf<K, M> extends { responses: object }
      ? K
      : never
    : never;
}[ContractPath];
/** Among the candidates, the most specific: '/api/instances/count' before '/api/instances/{id}'. */
type MostSpecific<Ks extends ContractPath> = {
  [K in Ks]: { [J in Exclude<Ks, K>]: Filled<J> extends Filled<K> ? J : never }[Exclude<Ks, K>] extends never
    ? K
    : never;
}[Ks];
type Body<R> = R extends { content: { 'application/json': infer B } } ? B : string;
/** The body of a success (2xx) answer of the operation; text ('') for one with no JSON body. */
type SuccessBody<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 | 204 ? Body<R[S]> : never }[keyof R]
  : never;

/** The one error body (lib/error-handler.ts); a validation error's details name the fields. */
export type ErrorFields = Partial<Omit<ApiError, 'details'>> & {
  details?: { fieldErrors?: Record<string, string[] | undefined>; [key: string]: unknown };
};

/**
 * What `call` answers as `json` for `M path`: the contract's success body, on which the fields of the
 * one error body (`{ error, message, details? }`) are optional, so a test reads either without a cast;
 * `unknown` for a path the contract does not describe (the web app, a route that must not exist).
 */
export type JsonOf<M extends Method, P extends string> = M extends Method ? JsonOfMethod<M, P> : never;
type JsonOfMethod<M extends Method, P extends string> = [Candidates<P, M>] extends [never]
  ? unknown
  : SuccessBody<OperationOf<MostSpecific<Candidates<P, M>>, M>> & ErrorFields;

/** The JSON body the contract takes for `M path`; `unknown` for a path the contract does not describe. */
export type BodyOf<M extends Method, P extends string> = M extends Method ? BodyOfMethod<M, P> : never;
type BodyOfMethod<M extends Method, P extends string> = [Candidates<P, M>] extends [never]
  ? unknown
  : RequestBody<OperationOf<MostSpecific<Candidates<P, M>>, M>>;
type RequestBody<O> = O extends { requestBody?: infer R }
  ? NonNullable<R> extends { content: { 'application/json': infer B } }
    ? B
    : never
  : never;

/** `T` without `K`, member by member of a union (a body whose members differ by their fields). */
export type Without<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A deploy request, as the deploy form and the public API send it. */
export type DeployBody = BodyOf<'POST', '/api/instances/deploy'>;

/** A response of `M path` with its body read: JSON typed by the contract (JsonOf), else the text. */
export interface Answer<M extends Method, P extends string> {
  status: number;
  headers: Headers;
  json: JsonOf<M, P>;
}

/**
 * Reads `res`, the answer to `M path`, with its body typed by the contract. For helpers that send
 * their own requests (multipart uploads, API keys, a real server): `answerOf<'POST', '/api/x'>(res)`.
 */
export async function answerOf<M extends Method, P extends string>(res: Response): Promise<Answer<M, P>> {
  const text = await res.text();
  const json: unknown = text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  // The contract's type of the answer: the OpenAPI drift test keeps the routes and the contract equal.
  return { status: res.status, headers: res.headers, json: json as JsonOf<M, P> };
}

/**
 * What `call` sends: `body`, typed by the contract, so a test that sends a field the route no longer
 * takes fails to compile; `badBody`, a body the contract refuses (what validation answers); or
 * `rawBody`, text as it is (broken JSON).
 */
export interface CallOptions<M extends Method, P extends string> {
  body?: BodyOf<M, P>;
  badBody?: unknown;
  rawBody?: string;
  token?: string;
}

/** What `call` sends to: the in-process app, or a server process over its socket (server-process.ts). */
export interface Requester {
  request(path: string, init: RequestInit): Response | Promise<Response>;
}

/** Sends a JSON request to `app`: the in-process app (nothing listens on a port) or a server process. */
export async function call<M extends Method, const P extends string>(
  app: Requester,
  method: M,
  path: P,
  options: CallOptions<M, P> = {},
): Promise<Answer<M, P>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const json = options.body ?? options.badBody;
  const body = options.rawBody ?? (json === undefined ? undefined : JSON.stringify(json));
  return answerOf<M, P>(await app.request(path, { method, headers, body }));
}

/**
 * `call` on the app `app()` answers, as the user whose token `token()` answers unless another token is
 * given: a test file's `api(method, route, body?, token?)`. Both are read at each call, so a file may
 * make its app and its user in `beforeAll`.
 */
export function callAs(app: () => Requester, token: () => string) {
  return <M extends Method, const P extends string>(
    method: M,
    route: P,
    body?: BodyOf<M, P>,
    as: string = token(),
  ) => call(app(), method, route, { token: as, body });
}

/** `value`, which the test expects to be there (a field the contract makes nullable); fails the test when not. */
export function present<T>(value: T | null | undefined, what = 'a value'): T {
  if (value === null || value === undefined) throw new Error(`expected ${what}, got ${String(value)}`);
  return value;
}

/**
 * The answer of a route with more than one success shape (202 while preparing, 200 once ready) as the
 * one that has `key`; fails the test when it is the other.
 */
export function variant<T extends object, K extends string>(json: T, key: K): Extract<T, Record<K, unknown>> {
  if (!(key in json)) throw new Error(`expected an answer with ${key}, got ${JSON.stringify(json)}`);
  return json as Extract<T, Record<K, unknown>>;
}

/** The database connection details of an access answer (ready, with a database); fails the test else. */
export function accessDatabase<T extends object>(
  json: T,
): NonNullable<Extract<T, Record<'database', unknown>>['database']> {
  const { database } = variant(json, 'database') as Record<'database', unknown>;
  return present(database, 'database credentials') as NonNullable<
    Extract<T, Record<'database', unknown>>['database']
  >;
}

let counter = 0;

type Registration = BodyOf<'POST', '/api/auth/register'>;

/** A valid registration body; each call gets a distinct username and e-mail. */
export function newAccount(overrides: Partial<Registration> = {}): Registration {
  counter += 1;
  return {
    accountType: 'individual',
    firstName: 'Ada',
    lastName: 'Lovelace',
    username: `ada${counter}`,
    email: `ada${counter}@example.com`,
    password: 'Analytical#1843',
    ...overrides,
  };
}

/**
 * Registers the first admin of a fresh database the way an operator does from elsewhere: with the
 * one-time setup token the server prints at start (requests here come through no socket, so none is
 * "from this machine").
 */
export async function registerAdmin(app: TestApp, db: Db, overrides: Partial<Registration> = {}) {
  const setupToken = await prepareSetupToken(db);
  if (!setupToken) throw new Error('an admin exists already: registerAdmin needs a fresh database');
  const admin = await register(app, { ...overrides, setupToken });
  if (admin.user.role !== 'admin') throw new Error('the setup token did not make an admin');
  return admin;
}

export async function register(app: Requester, overrides: Partial<Registration> = {}) {
  const body = newAccount(overrides);
  const res = await call(app, 'POST', '/api/auth/register', { body });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.json)}`);
  const result: AuthResult = res.json;
  return { ...result, body };
}
