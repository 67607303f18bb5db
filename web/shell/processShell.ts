import { closeSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { withFolderBeneath } from '#shared/fs/beneath.ts';
import { ownedFolderAt } from '#shared/fs/ownedFolder.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { erpServerAddress } from '#shared/instanceDatabase/erpServerUrl.ts';
import { instanceCredentials } from '#shared/instanceDatabase/instanceRole.ts';
import type { SystemUser } from '#shared/local/systemUser.ts';
import { DEFAULT_UID_RANGE, tenantAccount, type UidRange } from '#shared/local/tenantAccount.ts';
import { instanceDir } from '#shared/platform/dataPaths.ts';
import { processTerminal, pythonCommand, PYTHON_MISSING } from './processTerminal.ts';
import type { TerminalSize } from './shellMessages.ts';
import { ShellUnavailable, type Terminal } from './terminal.ts';

/** Variables of web's own environment a shell may see; web's secrets (master key, service token) stay out. */
const PASSED_THROUGH = ['PATH', 'LANG', 'LC_ALL', 'TZ'];

export interface ProcessShellContext {
  dataDir: string;
  masterKey: Buffer | string;
  /** FORJA_ERP_DATABASE_URL, when instance databases are not on the private cluster. */
  erpDatabaseUrl: string | undefined;
  /** FORJA_TENANT_UID_RANGE: where the instances' accounts are. */
  uidRange?: UidRange;
}

/**
 * What the ERP gets, so `psql` and scripts work as they do for it: the PG* variables of its own
 * database role (password derived like the executor's, in the environment, never on a command
 * line), its version for the ERP stand-in, and a HOME inside the instance folder.
 */
export function processShellEnv(ctx: ProcessShellContext, instance: { slug: string; erpVersion: string }, home: string, user: SystemUser | null): Record<string, string> {
  const database = databaseName(instance.slug);
  const { user: role, password } = instanceCredentials(ctx.masterKey, database);
  const address = erpServerAddress(ctx.dataDir, ctx.erpDatabaseUrl);
  const env: Record<string, string> = {
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    HOME: home,
    PGDATABASE: database,
    PGUSER: role,
    PGPASSWORD: password,
    ...(address ? { PGHOST: address.host, PGPORT: String(address.port) } : {}),
    FORJA_INSTANCE: instance.slug,
    FORJA_STANDIN_VERSION: instance.erpVersion,
    ...(user ? { USER: user.name, LOGNAME: user.name } : {}),
  };
  for (const name of PASSED_THROUGH) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/** The shell: bash as a login shell, or sh where there is no bash. */
export const loginShell = (): string[] => (existsSync('/bin/bash') ? ['/bin/bash', '-l'] : ['/bin/sh', '-l']);

/**
 * The instance's `home/`, its account's alone (0700): the HOME of its ERP and of its shell. The
 * instance's account writes in it, so root makes and hands it over through handles, never by
 * path: a link planted in its place is removed, never followed (and never chowned).
 */
export function prepareHome(dataDir: string, slug: string, user: SystemUser | null): string {
  const instances = join(dataDir, 'instances');
  withFolderBeneath(instances, slug, (instance) => closeSync(ownedFolderAt(instance, 'home', user && { uid: user.uid, gid: user.gid }, 0o700)));
  return join(instances, slug, 'home');
}

/**
 * A shell in the instance's folder (its source checkout when it has one), as the instance's own
 * account when web runs as root (the ERP's: the shell gets no more rights than the ERP, and none on
 * other instances). The folder must be on this machine (web shares FORJA_DATA_DIR with the executor).
 */
export async function openProcessShell(ctx: ProcessShellContext, instance: { slug: string; erpVersion: string }, size: TerminalSize, recordOpened: () => Promise<void>): Promise<Terminal> {
  const dir = instanceDir(ctx.dataDir, instance.slug);
  if (!existsSync(dir)) throw new ShellUnavailable(`The folder of ${instance.slug} is not on this server: web and the executor must share FORJA_DATA_DIR for its shell to open.`);
  if (!pythonCommand()) throw new ShellUnavailable(PYTHON_MISSING);
  await recordOpened();
  const user = tenantAccount('instance', instance.slug, ctx.uidRange ?? DEFAULT_UID_RANGE);
  const home = prepareHome(ctx.dataDir, instance.slug, user);
  const source = join(dir, 'src');
  return processTerminal({ command: loginShell(), cwd: existsSync(source) ? source : dir, env: processShellEnv(ctx, instance, home, user), user, size });
}
