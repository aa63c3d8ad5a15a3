/**
 * Run by keychain.test.ts inside a private D-Bus session with gnome-keyring (not a test file itself).
 * Drives the real TokenStore over @napi-rs/keyring and prints one JSON line with what it observed.
 */
import * as keytar from '@napi-rs/keyring/keytar.js';
import { createTokenStore, KEYCHAIN_SERVICE, sessionAccount } from '../src/main/token-store.ts';

const store = createTokenStore(keytar);
const account = sessionAccount('https://berth.example.com');
const otherAccount = sessionAccount('http://localhost:8080');

const before = await store.get(account);
await store.set(account, 'token-1');
const afterSet = await store.get(account);
await store.set(otherAccount, 'other-token');
await store.set(account, 'token-2');
const afterOverwrite = await store.get(account);
const accounts = (await keytar.findCredentials(KEYCHAIN_SERVICE))
  .map((credential) => credential.account)
  .sort();
const deleted = await store.delete(account);
const afterDelete = await store.get(account);
const deletedAgain = await store.delete(account);
const other = await store.get(otherAccount);

console.log(
  JSON.stringify({ before, afterSet, afterOverwrite, accounts, deleted, afterDelete, deletedAgain, other }),
);
