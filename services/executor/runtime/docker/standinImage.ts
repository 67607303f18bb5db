import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Docker from 'dockerode';
import { engineStatus } from './engine.ts';
import { IMAGE_LABELS, STANDIN_IMAGE } from './erpImage.ts';

/** This checkout: the image names it, and the runtime bind-mounts it read-only at the same path. */
const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/$/, '');
const HASH_LABEL = 'forja.standin.hash';

/** The official image's account (odoo/docker Dockerfile: `USER odoo`, created by the package as a system user). */
export const OFFICIAL_IMAGE_UID = 101;

/**
 * Builds Forja's ERP stand-in as an image on the engine, with no registry and no base image: a
 * root filesystem holding this `node`, the shared libraries `ldd` lists for it and for /bin/sh,
 * and the official image's layout (odoo/docker `<version>/Dockerfile`): `/usr/bin/odoo`, an
 * `/entrypoint.sh` that does what the official one does (services/erp-standin/image), user
 * `odoo` (uid 101), volumes /var/lib/odoo and /mnt/extra-addons owned by it, `ODOO_RC` naming
 * /etc/odoo/odoo.conf. It is imported through the Engine API (`POST /images/create?fromSrc=-`)
 * and tagged `localhost/forja-erp-standin:<version>`. The repository is not copied: the stand-in
 * runs this checkout's code and node_modules through the bind mount the image asks for (label
 * `forja.host-folder`). An image whose content hash matches is kept, not rebuilt.
 */
export async function buildStandinImage(docker: Docker, erpVersion: string): Promise<{ ref: string; built: boolean }> {
  const ref = `${STANDIN_IMAGE}:${erpVersion}`;
  const node = realpathSync(process.execPath);
  const files = [node, ...sharedLibraries([node, '/bin/sh']), '/bin/sh'];
  const staged = stagedFiles(node);
  const hash = contentHash(files, JSON.stringify(staged) + erpVersion);
  const existing = await docker.getImage(ref).inspect().catch((error: unknown) => (engineStatus(error) === 404 ? null : Promise.reject(error)));
  if (existing?.Config?.Labels?.[HASH_LABEL] === hash) return { ref, built: false };

  const staging = mkdtempSync(join(tmpdir(), 'forja-standin-image-'));
  try {
    const root = join(staging, 'root');
    for (const [path, { text, mode, official }] of Object.entries(staged)) {
      const target = join(root, path);
      mkdirSync(dirname(target), { recursive: true });
      if (text === null) mkdirSync(target);
      else writeFileSync(target, text);
      chmodSync(target, mode);
      if (official && process.getuid?.() === 0) chownSync(target, OFFICIAL_IMAGE_UID, OFFICIAL_IMAGE_UID);
    }
    // Not root: the staged files are ours, and tar gives them to the image's account instead.
    const maps = process.getuid?.() === 0 ? [] : ownerMaps(staging);
    const label = (name: string, value: string) => `LABEL ${name}=${JSON.stringify(value)}`;
    const changes = [
      label(IMAGE_LABELS.standin, 'true'),
      label(IMAGE_LABELS.hostFolder, REPOSITORY),
      label(HASH_LABEL, hash),
      'ENV PATH=/usr/local/bin:/usr/bin:/bin',
      'ENV LANG=C.UTF-8',
      `ENV ODOO_VERSION=${erpVersion}`,
      // The stand-in plays this version's rules; the official image has no such variable.
      `ENV FORJA_STANDIN_VERSION=${erpVersion}`,
      'ENV ODOO_RC=/etc/odoo/odoo.conf',
      'VOLUME ["/var/lib/odoo", "/mnt/extra-addons"]',
      'EXPOSE 8069', 'EXPOSE 8071', 'EXPOSE 8072',
      'USER odoo',
      'ENTRYPOINT ["/entrypoint.sh"]',
      'CMD ["odoo"]',
    ];
    // -h stores the files symlinks point at; the two -C put host files and staged ones in one root.
    const tar = spawn('tar', ['-c', '-h', ...maps, '-C', '/', ...files.map((file) => file.slice(1)), '-C', root, ...topLevel(staged)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let tarErrors = '';
    tar.stderr.on('data', (chunk: Buffer) => (tarErrors += chunk.toString()));
    const tarExit = new Promise<number | null>((resolve) => tar.once('close', resolve));
    const progress = await docker.importImage(tar.stdout, { changes });
    const output = await new Promise<Array<{ status?: string; error?: string }>>((resolve, reject) =>
      docker.modem.followProgress(progress, (error: Error | null, result: Array<{ status?: string }>) => (error ? reject(error) : resolve(result))),
    );
    if ((await tarExit) !== 0) throw new Error(`building the stand-in image: tar failed: ${tarErrors.trim()}`);
    const id = output.map((line) => line.status ?? '').find((status) => /^(sha256:)?[0-9a-f]{12,}$/.test(status));
    if (!id) throw new Error(`building the stand-in image: the engine did not report an image id: ${JSON.stringify(output).slice(0, 500)}`);
    await docker.getImage(id).tag({ repo: STANDIN_IMAGE, tag: erpVersion });
    return { ref, built: true };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** A staged file (`text`) or folder (`text: null`); `official`: owned by the image's account, as the official Dockerfile chowns it. */
interface Staged {
  text: string | null;
  mode: number;
  official?: boolean;
}

const quoted = (path: string) => `'${path.replaceAll("'", `'\\''`)}'`;

function stagedFiles(node: string): Record<string, Staged> {
  const run = (script: string) => `${quoted(node)} --import ${quoted(`${REPOSITORY}/node_modules/tsx/dist/loader.mjs`)} ${quoted(`${REPOSITORY}/services/erp-standin/${script}`)}`;
  return {
    'usr/bin/odoo': {
      mode: 0o755,
      text: ['#!/bin/sh', "# Forja's ERP stand-in: the repository is bind-mounted read-only at the same path (label forja.host-folder).", `exec ${run('main.ts')} "$@"`, ''].join('\n'),
    },
    // The official entrypoint.sh's decisions are in image/officialEntrypoint.ts; it prints the command to exec, so the ERP stays process 1.
    'entrypoint.sh': {
      mode: 0o755,
      text: ['#!/bin/sh', 'set -e', `command=$(${run('image/entrypoint.ts')} "$@")`, 'eval "exec $command"', ''].join('\n'),
    },
    'etc/passwd': { mode: 0o644, text: `root:x:0:0:root:/root:/bin/sh\nodoo:x:${OFFICIAL_IMAGE_UID}:${OFFICIAL_IMAGE_UID}::/var/lib/odoo:/usr/sbin/nologin\n` },
    'etc/group': { mode: 0o644, text: `root:x:0:\nodoo:x:${OFFICIAL_IMAGE_UID}:\n` },
    // odoo/docker `<version>/odoo.conf`: what the image's ERP reads when no -c names another file.
    'etc/odoo/odoo.conf': { mode: 0o644, official: true, text: '[options]\naddons_path = /mnt/extra-addons\ndata_dir = /var/lib/odoo\n; admin_passwd = admin\n' },
    'var/lib/odoo': { mode: 0o755, official: true, text: null },
    'mnt/extra-addons': { mode: 0o755, official: true, text: null },
    tmp: { mode: 0o1777, text: null }, // tsx keeps its cache in the temporary folder
  };
}

/** The staged tree's top-level names, for tar. */
const topLevel = (staged: Record<string, Staged>) => [...new Set(Object.keys(staged).map((path) => path.split('/')[0]!))];

function ownerMaps(staging: string): string[] {
  const owners = join(staging, 'owners');
  writeFileSync(owners, `+${process.getuid?.() ?? 0} odoo:${OFFICIAL_IMAGE_UID}\n`);
  const groups = join(staging, 'groups');
  writeFileSync(groups, `+${process.getgid?.() ?? 0} odoo:${OFFICIAL_IMAGE_UID}\n`);
  return [`--owner-map=${owners}`, `--group-map=${groups}`];
}

/** Absolute paths of the libraries `ldd` lists (the dynamic loader included). */
function sharedLibraries(binaries: string[]): string[] {
  const result = spawnSync('ldd', binaries, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building the stand-in image: ldd failed: ${result.stderr.trim()}`);
  const paths = [...result.stdout.matchAll(/(\/\S+) \(0x[0-9a-f]+\)/g)].map((match) => match[1]!);
  return [...new Set(paths)];
}

function contentHash(files: string[], script: string): string {
  const hash = createHash('sha256').update(script).update(REPOSITORY);
  for (const file of files) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${file}\0${size}\0${mtimeMs}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}
