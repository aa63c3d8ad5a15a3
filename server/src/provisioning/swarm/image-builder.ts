import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { buildOnce, isAlive } from '../build-once.ts';
import { debianMirror, hostAptSources, hostCodename, sourcesList } from './apt-sources.ts';
import { filePath, type ImageName, type ImageRecipe, imageRef, RECIPES } from './image-recipes.ts';

/**
 * Builds Berth's swarm images without a registry and without network inside the nodes: a Debian base
 * made by `debootstrap --variant=minbase` from the host's mirror, then for each recipe a copy of it with
 * the recipe's packages installed by apt-get in a chroot (on the host's network), its files and steps,
 * packed as a root file system tarball. Each is built once per host into `cacheDir` (build-once.ts: a
 * folder of its own, renamed into place when complete) and then imported into any Docker engine with
 * `docker import` (POST /images/create?fromSrc=-), which takes seconds.
 */

const run = promisify(execFile);

/** Where images are cached by default: beside the n8n runtime, shared by every clone on the host. */
const DEFAULT_IMAGE_CACHE = '/var/cache/berth/images';

/** Bump to rebuild the base (and with it every image). */
const BASE_VERSION = 1;

export interface BaseImage {
  codename: string;
  /** The base's identity: part of every image tag. */
  id: string;
}

function baseImage(codename = hostCodename()): BaseImage {
  const id = createHash('sha256').update(`${codename}/minbase/${BASE_VERSION}`).digest('hex').slice(0, 12);
  return { codename, id };
}

/** Every image reference the swarm driver uses on this host's release. */
export function imageRefs(base: BaseImage = baseImage()): Record<ImageName, string> {
  return Object.fromEntries(
    Object.entries(RECIPES).map(([name, recipe]) => [name, imageRef(recipe, base.id)]),
  ) as Record<ImageName, string>;
}

async function sh(command: string, args: string[], log: (line: string) => void): Promise<void> {
  log(`${command} ${args.join(' ')}`);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-6000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}:\n${output}`)),
    );
  });
}

/**
 * Runs `script` as root inside `rootfs` with /proc mounted in a mount namespace of its own (the mount
 * goes away with it, whatever happens) and the host's resolver; services are kept from starting.
 */
async function inChroot(rootfs: string, script: string, log: (line: string) => void): Promise<void> {
  await copyFile('/etc/resolv.conf', path.join(rootfs, 'etc/resolv.conf'));
  await writeFile(path.join(rootfs, 'usr/sbin/policy-rc.d'), '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  const wrapped = `set -e; mount -t proc proc "$1/proc"; chroot "$1" /bin/sh -ec "$2"`;
  try {
    await sh(
      'unshare',
      ['--mount', '--propagation', 'private', 'sh', '-c', wrapped, 'sh', rootfs, script],
      log,
    );
  } finally {
    await run('rm', ['-f', path.join(rootfs, 'usr/sbin/policy-rc.d'), path.join(rootfs, 'etc/resolv.conf')]);
  }
}

const baseDir = (cacheDir: string, base: BaseImage) =>
  path.join(cacheDir, `debian-${base.codename}-${base.id}`);
const imageTar = (cacheDir: string, ref: string) => path.join(cacheDir, `${ref.replace(/[/:]/g, '-')}.tar`);

/** The debootstrap base (a root file system folder with apt's lists fetched), built once. */
async function ensureBase(cacheDir: string, base: BaseImage, log: (line: string) => void): Promise<string> {
  const dir = baseDir(cacheDir, base);
  const rootfs = path.join(dir, 'rootfs');
  await buildOnce(
    dir,
    () => existsSync(path.join(dir, 'complete')),
    async (partial) => {
      const sources = hostAptSources();
      const mirror = debianMirror(sources, base.codename);
      await mkdir(partial, { recursive: true });
      const started = Date.now();
      await sh(
        'debootstrap',
        ['--variant=minbase', base.codename, path.join(partial, 'rootfs'), mirror],
        log,
      );
      await writeFile(path.join(partial, 'rootfs/etc/apt/sources.list'), sourcesList(sources));
      await inChroot(path.join(partial, 'rootfs'), 'apt-get update -qq', log);
      log(`Debian base ${base.codename} made in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      await writeFile(path.join(partial, 'complete'), new Date().toISOString());
    },
  );
  return rootfs;
}

function recipeScript(recipe: ImageRecipe): string {
  const users = recipe.users
    .map(
      (user) =>
        `getent group ${user.name} >/dev/null || groupadd -r -g ${user.uid} ${user.name}
getent passwd ${user.name} >/dev/null || useradd -r -u ${user.uid} -g ${user.uid} -d ${user.home} -s /usr/sbin/nologin ${user.name}`,
    )
    .join('\n');
  return [
    'export DEBIAN_FRONTEND=noninteractive',
    users,
    `apt-get install -y -qq --no-install-recommends ${recipe.packages.join(' ')} >/dev/null`,
    'apt-get clean',
    'rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* /usr/share/locale/*',
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * A recipe's packages installed on the base (a root file system folder), built once per host and kept:
 * a change to a recipe's files or steps then rebuilds in seconds, not minutes of apt.
 */
const packagedDir = (cacheDir: string, base: BaseImage, recipe: ImageRecipe) => {
  const hash = createHash('sha256')
    .update(JSON.stringify({ base: base.id, packages: recipe.packages, users: recipe.users }))
    .digest('hex')
    .slice(0, 12);
  return path.join(cacheDir, `packages-${recipe.name}-${hash}`);
};

async function ensurePackaged(
  cacheDir: string,
  base: BaseImage,
  recipe: ImageRecipe,
  log: (line: string) => void,
): Promise<string> {
  const dir = packagedDir(cacheDir, base, recipe);
  await buildOnce(
    dir,
    () => existsSync(path.join(dir, 'complete')),
    async (partial) => {
      const baseRootfs = await ensureBase(cacheDir, base, log);
      const started = Date.now();
      await mkdir(partial, { recursive: true });
      await run('cp', ['-a', baseRootfs, path.join(partial, 'rootfs')]);
      await inChroot(path.join(partial, 'rootfs'), recipeScript(recipe), log);
      await writeFile(path.join(partial, 'complete'), new Date().toISOString());
      log(`packages of ${recipe.name} installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    },
  );
  return path.join(dir, 'rootfs');
}

/** One image's root file system tarball, built once per host. Answers its path. */
async function ensureImageTar(
  cacheDir: string,
  base: BaseImage,
  name: ImageName,
  log: (line: string) => void,
): Promise<string> {
  const recipe: ImageRecipe = RECIPES[name];
  const ref = imageRef(recipe, base.id);
  const tar = imageTar(cacheDir, ref);
  const folder = `${tar}.d`;
  await buildOnce(
    folder,
    () => existsSync(path.join(folder, 'rootfs.tar')),
    async (partial) => {
      const packaged = await ensurePackaged(cacheDir, base, recipe, log);
      const started = Date.now();
      const rootfs = path.join(partial, 'rootfs');
      await mkdir(partial, { recursive: true });
      await run('cp', ['-a', packaged, rootfs]);
      for (const file of recipe.files) {
        const target = path.join(rootfs, file.to);
        await mkdir(path.dirname(target), { recursive: true });
        if ('from' in file) await copyFile(filePath(recipe, file.from), target);
        else await writeFile(target, file.content);
        await run('chmod', [file.mode.toString(8), target]);
      }
      if (recipe.steps) await inChroot(rootfs, recipe.steps, log);
      await sh('tar', ['--numeric-owner', '-C', rootfs, '-cf', path.join(partial, 'rootfs.tar'), '.'], log);
      await run('rm', ['-rf', rootfs]);
      log(`image ${ref} built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    },
  );
  return path.join(folder, 'rootfs.tar');
}

/** Builds (once per host) every image's tarball. */
export async function buildImages(
  options: { cacheDir?: string; names?: ImageName[]; log?: (line: string) => void } = {},
): Promise<Record<ImageName, string>> {
  const cacheDir = options.cacheDir ?? DEFAULT_IMAGE_CACHE;
  const log = options.log ?? (() => {});
  const base = baseImage();
  await mkdir(cacheDir, { recursive: true, mode: 0o755 });
  const names = options.names ?? (Object.keys(RECIPES) as ImageName[]);
  const tars: Partial<Record<ImageName, string>> = {};
  // One after another: apt and dpkg are heavy, and the base is made by the first.
  for (const name of names) tars[name] = await ensureImageTar(cacheDir, base, name, log);
  if (!options.names) await pruneCache(cacheDir, base, log);
  return tars as Record<ImageName, string>;
}

/** Removes what earlier recipes left in the cache (older images, package layers, bases). */
async function pruneCache(cacheDir: string, base: BaseImage, log: (line: string) => void): Promise<void> {
  const recipes = Object.values(RECIPES) as ImageRecipe[];
  const current = new Set([
    path.basename(baseDir(cacheDir, base)),
    ...recipes.map((recipe) => path.basename(`${imageTar(cacheDir, imageRef(recipe, base.id))}.d`)),
    ...recipes.map((recipe) => path.basename(packagedDir(cacheDir, base, recipe))),
  ]);
  for (const entry of await readdir(cacheDir)) {
    // A partial folder belongs to a build: kept while its process lives.
    const builder = /\.partial-(\d+)-\d+$/.exec(entry)?.[1];
    if (current.has(entry) || (builder !== undefined && isAlive(Number(builder)))) continue;
    if (!/^(berth-.+\.tar\.d|packages-.+|debian-.+)(\.partial-\d+-\d+)?$/.test(entry)) continue;
    await rm(path.join(cacheDir, entry), { recursive: true, force: true });
    log(`removed ${entry} from the image cache (an older recipe, or a build that died)`);
  }
}

async function follow(docker: Docker, stream: NodeJS.ReadableStream): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    docker.modem.followProgress(stream, (error: Error | null) => (error ? reject(error) : resolve())),
  );
}

/**
 * Puts the images into one engine (a node's dockerd) by `docker import` of the cached tarballs; images it
 * has already are left alone. On a multi-node swarm every node needs them (see the README).
 */
export async function loadImages(
  docker: Docker,
  options: { cacheDir?: string; names?: ImageName[]; log?: (line: string) => void } = {},
): Promise<void> {
  const log = options.log ?? (() => {});
  const tars = await buildImages(options);
  const refs = imageRefs();
  for (const [name, tar] of Object.entries(tars) as [ImageName, string][]) {
    const ref = refs[name];
    const present = await docker
      .getImage(ref)
      .inspect()
      .then(() => true)
      .catch(() => false);
    if (present) continue;
    const [repo, tag] = ref.split(':');
    const started = Date.now();
    await follow(docker, await docker.importImage(createReadStream(tar), { repo, tag }));
    log(`imported ${ref} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

/**
 * Puts the image `ref` into `docker` without a registry, when it lacks it: from this host's cache if it
 * holds the image's tarball, else from another engine that has it (`docker save | docker load` through
 * the Engine API, streamed). Answers where it came from, or undefined when it was there already.
 */
export async function copyImage(
  docker: Docker,
  ref: string,
  sources: Docker[],
  cacheDir = DEFAULT_IMAGE_CACHE,
): Promise<'cache' | 'node' | undefined> {
  const has = (engine: Docker) =>
    engine
      .getImage(ref)
      .inspect()
      .then(() => true)
      .catch(() => false);
  if (await has(docker)) return undefined;
  const tar = path.join(`${imageTar(cacheDir, ref)}.d`, 'rootfs.tar');
  if (existsSync(tar)) {
    const [repo, tag] = ref.split(':');
    await follow(docker, await docker.importImage(createReadStream(tar), { repo, tag }));
    return 'cache';
  }
  for (const source of sources) {
    if (!(await has(source))) continue;
    const saved = (await source.getImage(ref).get()) as NodeJS.ReadableStream;
    await follow(docker, await docker.loadImage(saved));
    return 'node';
  }
  throw new Error(`no copy of ${ref} here nor on another server of the region`);
}
