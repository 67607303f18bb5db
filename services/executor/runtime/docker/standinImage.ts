import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Docker from 'dockerode';
import { engineStatus } from './engine.ts';
import { IMAGE_LABELS, STANDIN_IMAGE } from './erpImage.ts';

/** This checkout: the image names it, and the runtime bind-mounts it read-only at the same path. */
const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/$/, '');
const HASH_LABEL = 'forja.standin.hash';
/** Where the runtime mounts the instance's checked-out code (erpContainer.ts), as the official image expects it. */
const EXTRA_ADDONS = '/mnt/extra-addons';

/**
 * Builds Forja's ERP stand-in as an image on the engine, with no registry and no base image: a
 * root filesystem holding this `node`, the shared libraries `ldd` lists for it and for /bin/sh,
 * and `/usr/local/bin/odoo-bin`, imported through the Engine API (`POST /images/create?fromSrc=-`)
 * and tagged `localhost/forja-erp-standin:<version>`. The repository is not copied: the stand-in
 * runs this checkout's code and node_modules through the bind mount the image asks for
 * (label `forja.host-folder`). An image whose content hash matches is kept, not rebuilt.
 */
export async function buildStandinImage(docker: Docker, erpVersion: string): Promise<{ ref: string; built: boolean }> {
  const ref = `${STANDIN_IMAGE}:${erpVersion}`;
  const node = realpathSync(process.execPath);
  const files = [node, ...sharedLibraries([node, '/bin/sh']), '/bin/sh'];
  const script = entryScript(node);
  const hash = contentHash(files, script);
  const existing = await docker.getImage(ref).inspect().catch((error: unknown) => (engineStatus(error) === 404 ? null : Promise.reject(error)));
  if (existing?.Config?.Labels?.[HASH_LABEL] === hash) return { ref, built: false };

  const staging = mkdtempSync(join(tmpdir(), 'forja-standin-image-'));
  try {
    mkdirSync(join(staging, 'usr/local/bin'), { recursive: true });
    writeFileSync(join(staging, 'usr/local/bin/odoo-bin'), script, { mode: 0o755 });
    mkdirSync(join(staging, 'tmp'));
    chmodSync(join(staging, 'tmp'), 0o1777); // tsx keeps its cache in the temporary folder
    const label = (name: string, value: string) => `LABEL ${name}=${JSON.stringify(value)}`;
    const changes = [
      label(IMAGE_LABELS.standin, 'true'),
      label(IMAGE_LABELS.command, 'odoo-bin'),
      label(IMAGE_LABELS.hostFolder, REPOSITORY),
      label(HASH_LABEL, hash),
      'ENV PATH=/usr/local/bin:/usr/bin:/bin',
      'CMD ["odoo-bin"]',
    ];
    // -h stores the files symlinks point at; the two -C put host files and staged ones in one root.
    const tar = spawn('tar', ['-c', '-h', '-C', '/', ...files.map((file) => file.slice(1)), '-C', staging, 'usr', 'tmp'], { stdio: ['ignore', 'pipe', 'pipe'] });
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

function entryScript(node: string): string {
  const quoted = (path: string) => `'${path.replaceAll("'", `'\\''`)}'`;
  return [
    '#!/bin/sh',
    "# Forja's ERP stand-in: the repository is bind-mounted read-only at the same path (label forja.host-folder).",
    "# The official image's odoo.conf puts /mnt/extra-addons, where the runtime mounts the instance's code, on the addons path.",
    // One word, the only form odoo/cli/command.py takes before a command (`odoo-bin --addons-path=… neutralize`).
    `if [ -d ${EXTRA_ADDONS} ]; then set -- --addons-path=${EXTRA_ADDONS} "$@"; fi`,
    `exec ${quoted(node)} --import ${quoted(`${REPOSITORY}/node_modules/tsx/dist/loader.mjs`)} ${quoted(`${REPOSITORY}/services/erp-standin/main.ts`)} "$@"`,
    '',
  ].join('\n');
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
