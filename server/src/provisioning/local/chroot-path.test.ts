import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PathRefusedError, resolveInRoot, virtualPath } from './chroot-path.ts';

let base = '';
let root = '';

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'berth-chroot-')));
  root = path.join(base, 'site');
  await mkdir(path.join(root, 'public', 'inner'), { recursive: true });
  await writeFile(path.join(base, 'secret.txt'), 'outside');
  await symlink('/etc', path.join(root, 'public', 'to-etc'));
  await symlink('../../secret.txt', path.join(root, 'public', 'to-secret'));
  await symlink('inner', path.join(root, 'public', 'to-inner'));
  await symlink(path.join(base, 'missing'), path.join(root, 'dangling'));
});

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

describe('virtual chroot paths', () => {
  it.each([
    ['.', '/'],
    ['', '/'],
    ['/', '/'],
    ['..', '/'],
    ['../../etc/passwd', '/etc/passwd'],
    ['public/../..', '/'],
    ['public//inner/', '/public/inner'],
    ['/public/./inner', '/public/inner'],
  ])('%j is %j inside the root', (requested, virtual) => {
    expect(virtualPath(requested)).toBe(virtual);
  });

  it('maps absolute, relative and dotted paths under the root', async () => {
    expect(await resolveInRoot(root, '/', true)).toBe(root);
    expect(await resolveInRoot(root, '../../etc/passwd', true)).toBe(path.join(root, 'etc/passwd'));
    expect(await resolveInRoot(root, '/etc/passwd', true)).toBe(path.join(root, 'etc/passwd'));
    expect(await resolveInRoot(root, 'public/new-file', true)).toBe(path.join(root, 'public/new-file'));
    expect(await resolveInRoot(root, 'public/to-inner/x', true)).toBe(path.join(root, 'public/to-inner/x'));
  });

  it('refuses symbolic links that lead out, through any component', async () => {
    for (const requested of [
      'public/to-etc',
      'public/to-etc/passwd',
      'public/to-secret',
      'public/to-etc/a/b',
    ]) {
      await expect(resolveInRoot(root, requested, true), requested).rejects.toBeInstanceOf(PathRefusedError);
    }
    await expect(resolveInRoot(root, 'dangling', true)).rejects.toBeInstanceOf(PathRefusedError);
  });

  it('allows acting on a link itself (remove, lstat) but not through it', async () => {
    expect(await resolveInRoot(root, 'public/to-etc', false)).toBe(path.join(root, 'public/to-etc'));
    await expect(resolveInRoot(root, 'public/to-etc/passwd', false)).rejects.toBeInstanceOf(PathRefusedError);
  });
});
