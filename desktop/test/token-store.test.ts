import { describe, expect, it } from 'vitest';
import {
  createTokenStore,
  KEYCHAIN_SERVICE,
  type Keychain,
  sessionAccount,
} from '../src/main/token-store.ts';
import { createMemoryKeychain } from './fakes.ts';

describe('TokenStore', () => {
  it('stores secrets under the fixed service name "Berth"', async () => {
    const keychain = createMemoryKeychain();
    await createTokenStore(keychain).set('session@https://berth.example.com', 'tok');
    expect(KEYCHAIN_SERVICE).toBe('Berth');
    expect([...keychain.entries]).toEqual([['Berth/session@https://berth.example.com', 'tok']]);
  });

  it('gets null, then the set value, then the overwritten value; delete reports whether it removed one', async () => {
    const store = createTokenStore(createMemoryKeychain());
    const account = sessionAccount('https://berth.example.com');
    expect(await store.get(account)).toBeNull();
    await store.set(account, 'first');
    expect(await store.get(account)).toBe('first');
    await store.set(account, 'second');
    expect(await store.get(account)).toBe('second');
    expect(await store.delete(account)).toBe(true);
    expect(await store.get(account)).toBeNull();
    expect(await store.delete(account)).toBe(false);
  });

  it('keeps one session token per server', async () => {
    const store = createTokenStore(createMemoryKeychain());
    const prod = sessionAccount('https://berth.example.com');
    const local = sessionAccount('http://localhost:8080');
    expect(prod).not.toBe(local);
    await store.set(prod, 'prod-token');
    await store.set(local, 'local-token');
    await store.delete(local);
    expect(await store.get(prod)).toBe('prod-token');
    expect(await store.get(local)).toBeNull();
  });

  it('passes keychain failures through to the caller', async () => {
    const denied = () => Promise.reject(new Error("Couldn't access platform storage: AccessDenied"));
    const keychain: Keychain = { getPassword: denied, setPassword: denied, deletePassword: denied };
    await expect(createTokenStore(keychain).get('session@x')).rejects.toThrow(/AccessDenied/);
  });
});
