import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { writeFileBeneath } from '#shared/fs/beneath.ts';
import { installDebianPackage } from '#shared/local/debianPackage.ts';
import type { SystemUser } from '#shared/local/systemUser.ts';
import { removeTenantAccount, tenantAccount, type UidRange } from '#shared/local/tenantAccount.ts';
import { requirementFiles, requirementsKey, venvPython } from './requirementFiles.ts';

/** Where pip finds packages: FORJA_PIP_INDEX_URL and FORJA_PIP_FIND_LINKS (a folder of wheels). */
export interface PipSources {
  indexUrl?: string | undefined;
  findLinks?: string | undefined;
}

export interface VenvBuild {
  /** FORJA_DATA_DIR: the venvs are `venvs/<key>` under it. */
  root: string;
  erpVersion: string;
  sourceDir: string;
  /** The interpreter the venv is made from and layered on: the ERP command's, or python3. */
  basePython: string;
  pip: PipSources;
  uidRange: UidRange;
  /** Appends a line to the build log. */
  log: (text: string) => void;
  signal?: AbortSignal | undefined;
}

/** The venv a step could not build: names the package when pip did, with pip's last lines. */
export class VenvError extends Error {
  override readonly name = 'VenvError';
}

const READY = '.forja-ready';
const TIMEOUT_MS = 30 * 60_000;
const building = new Map<string, Promise<string>>();

/**
 * The instance's own virtualenv with its repository's requirements installed (requirementFiles.ts),
 * built once per set of files and reused (`venvs/<key>/`, key = hash of the ERP version and the
 * files); returns its interpreter. Made with Debian's python3-venv (`<base> -m venv`) and layered
 * on the base interpreter's own venv, if it is one, by a `.pth` file: the ERP's packages stay
 * importable, the repository's come first. pip never asks (`--no-input`).
 *
 * Requirements come from an untrusted repository and pip may run their setup code, so as root the
 * build runs as an account of its own (`fi-pyenv-<hash>`, no tenant runs as it, removed after the
 * build) in a folder only it writes; the finished venv is then handed to root and left readable by
 * all: no tenant can change what another tenant's ERP imports.
 */
export function ensureInstanceVenv(build: VenvBuild): Promise<string | null> {
  const files = requirementFiles(build.sourceDir);
  if (files.length === 0) return Promise.resolve(null);
  const key = requirementsKey(build.erpVersion, files);
  const dir = join(build.root, 'venvs', key);
  const python = venvPython(build.root, key);
  const stale = staleness(join(dir, 'venv', READY), build);
  if (stale === null) {
    build.log(`python: reusing the virtualenv ${dir} (same requirements: ${files.map((file) => file.path).join(', ')})`);
    return Promise.resolve(python);
  }
  if (stale !== 'none') build.log(`python: rebuilding the virtualenv ${dir}: ${stale}`);
  const running = building.get(dir) ?? makeVenv(build, key, files).finally(() => building.delete(dir));
  building.set(dir, running);
  return running.then(() => python);
}

/**
 * What a venv was built from besides the requirement files (its key): the interpreter it is made
 * from and layered on, and where pip looked. Kept in its ready marker; a venv built from others is
 * rebuilt, so a new base interpreter for a version never leaves instances on a venv layered on the old one.
 */
function builtFrom(build: Pick<VenvBuild, 'basePython' | 'pip'>): { basePython: string; indexUrl: string | null; findLinks: string | null } {
  return { basePython: build.basePython, indexUrl: build.pip.indexUrl ?? null, findLinks: build.pip.findLinks ?? null };
}

/** null: the ready venv matches; 'none': there is none; else why it does not match. */
function staleness(marker: string, build: Pick<VenvBuild, 'basePython' | 'pip'>): string | null {
  if (!existsSync(marker)) return 'none';
  let recorded: Partial<ReturnType<typeof builtFrom>> = {};
  try {
    recorded = JSON.parse(readFileSync(marker, 'utf8')) as typeof recorded;
  } catch {
    // A marker of an earlier Forja (a date): what it was built from is unknown.
  }
  const wanted = builtFrom(build);
  const changed = (Object.keys(wanted) as Array<keyof typeof wanted>).filter((name) => recorded[name] !== wanted[name]);
  return changed.length === 0 ? null : `built from another ${changed.map((name) => ({ basePython: 'base interpreter', indexUrl: 'FORJA_PIP_INDEX_URL', findLinks: 'FORJA_PIP_FIND_LINKS' })[name]).join(', ')}`;
}

async function makeVenv(build: VenvBuild, key: string, files: ReturnType<typeof requirementFiles>): Promise<string> {
  const venvs = join(build.root, 'venvs');
  mkdirSync(venvs, { recursive: true, mode: 0o755 });
  chmodSync(venvs, 0o755);
  const final = join(venvs, key);
  const work = join(venvs, `.build-${key}-${randomBytes(4).toString('hex')}`);
  const builder = `pyenv-${key.slice(-16)}`;
  const user = tenantAccount('instance', builder, build.uidRange);
  const venv = join(work, 'venv');
  try {
    mkdirSync(work, { mode: 0o755 });
    // The files as read (never through a link), where the build's account can read them.
    const copies = files.map((file, index) => {
      const copy = join(work, `${index}-${basename(file.path)}`);
      writeFileSync(copy, file.content, { mode: 0o644 });
      return copy;
    });
    if (user) chownSync(work, user.uid, user.gid);
    build.log(`python: building a virtualenv for ${files.map((file) => file.path).join(', ')} from ${build.basePython}`);
    await makeBareVenv(build, user, venv, work);
    await run(build, user, join(venv, 'bin', 'python'), ['-c', LAYER, build.basePython], work, 'layering the virtualenv');
    const sources = [
      ...(build.pip.indexUrl ? ['--index-url', build.pip.indexUrl] : []),
      ...(build.pip.findLinks ? ['--find-links', build.pip.findLinks] : []),
      ...(build.pip.findLinks && !build.pip.indexUrl ? ['--no-index'] : []),
    ];
    const pipArgs = ['-m', 'pip', 'install', '--no-input', '--no-cache-dir', '--disable-pip-version-check', ...sources, ...copies.flatMap((copy) => ['-r', copy])];
    const output = await run(build, user, join(venv, 'bin', 'python'), pipArgs, work, 'pip install', true);
    if (output.code !== 0) throw new VenvError(pipFailure(output.stderr, files.map((file) => file.path)));
    // Handed to root: the account that built it can change nothing any more. pip ran the
    // repository's packages' own code as that account, so whatever it left running goes first,
    // or it could swap a folder for a link while the tree is handed over.
    if (user) {
      killProcessesOf(user.uid);
      await run(build, null, 'chown', ['-R', '--no-dereference', '0:0', work], work, 'chown');
    }
    chmodSync(work, 0o755);
    // Through a handle, never by path: a link that code planted at the marker's name is replaced, not followed.
    writeFileBeneath(work, join('venv', READY), `${JSON.stringify({ builtAt: new Date().toISOString(), ...builtFrom(build) })}\n`, { mode: 0o644 });
    rmSync(final, { recursive: true, force: true });
    // Only its interpreter is run, which finds its venv by the pyvenv.cfg beside it: the move is harmless.
    renameSync(work, final);
    build.log(`python: virtualenv ready at ${final}`);
    return final;
  } catch (error) {
    if (user) killProcessesOf(user.uid);
    rmSync(work, { recursive: true, force: true });
    throw error;
  } finally {
    // Nothing is its any more (the venv is root's or gone): the account goes, not to pile up one per venv.
    try {
      removeTenantAccount('instance', builder);
    } catch (error) {
      build.log(`python: ${(error as Error).message}`);
    }
  }
}

/**
 * `<base> -m venv`. Debian's python3 makes venvs only with python3-venv (its ensurepip): missing,
 * it is installed as PostgreSQL is on first use (as root; debianPackage.ts) and the venv made again.
 */
async function makeBareVenv(build: VenvBuild, user: SystemUser | null, venv: string, work: string): Promise<void> {
  const first = await run(build, user, build.basePython, ['-m', 'venv', venv], work, 'python3 -m venv', true);
  if (first.code === 0) return;
  if (!first.stderr.includes('python3-venv') && !first.stdout.includes('python3-venv')) throw new VenvError(`python3 -m venv failed (exit ${first.code}): ${tail(first.stderr || first.stdout)}`);
  build.log('python: installing Debian\'s python3-venv');
  installDebianPackage('python3-venv', 'python3 -m venv needs the python3-venv package: apt-get install python3-venv');
  rmSync(venv, { recursive: true, force: true });
  await run(build, user, build.basePython, ['-m', 'venv', venv], work, 'python3 -m venv');
}

/** Run by the new venv's interpreter: a `.pth` naming the base interpreter's site-packages when that is a venv. */
const LAYER = `
import json, os, subprocess, sys, sysconfig
base = json.loads(subprocess.run([sys.argv[1], '-c', 'import json, site, sys; print(json.dumps(site.getsitepackages() if sys.prefix != sys.base_prefix else []))'], capture_output=True, text=True, check=True).stdout)
if base:
    with open(os.path.join(sysconfig.get_paths()['purelib'], '_forja_erp_venv.pth'), 'w') as pth:
        pth.write('\\n'.join(base) + '\\n')
`;

interface Output {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(build: VenvBuild, user: SystemUser | null, program: string, args: string[], cwd: string, what: string, tolerate = false): Promise<Output> {
  return new Promise((resolve, reject) => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: cwd, PIP_NO_INPUT: '1' };
    const child = spawn(program, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: TIMEOUT_MS, ...(user ? { uid: user.uid, gid: user.gid } : {}), ...(build.signal ? { signal: build.signal } : {}) });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error) => reject(new VenvError(`${what}: cannot run ${program}: ${error.message}`)));
    child.on('close', (code) => {
      for (const line of `${stdout}${stderr}`.split('\n').filter(Boolean)) build.log(`  ${line}`);
      if (code === 0 || tolerate) resolve({ code, stdout, stderr });
      else reject(new VenvError(`${what} failed (exit ${code}): ${tail(stderr)}`));
    });
  });
}

const tail = (text: string) => text.trim().split('\n').slice(-6).join('\n');

/** The package pip names in its error (not found, no version, invalid), then pip's own last lines. */
export function pipFailure(stderr: string, files: readonly string[]): string {
  const name =
    /No matching distribution found for (\S+)/.exec(stderr)?.[1] ??
    /satisfies the requirement (\S+)/.exec(stderr)?.[1] ??
    /Invalid requirement: '([^']+)'/.exec(stderr)?.[1] ??
    /Failed to build (\S+)/.exec(stderr)?.[1];
  const what = name ? `pip could not install ${name}` : 'pip could not install the requirements';
  return `${what} (from ${files.join(', ')}):\n${tail(stderr)}`;
}

/**
 * SIGKILL to every process running as `uid` (the build account's, which nobody else uses): what
 * pip's builds left behind, found in /proc (status's real, effective, saved and file uids).
 */
function killProcessesOf(uid: number): void {
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${entry}/status`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/).map(Number) ?? [];
    if (!uids.includes(uid)) continue;
    try {
      process.kill(Number(entry), 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}
