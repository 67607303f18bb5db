import { join, resolve } from 'node:path';
import type { ContainerCreateOptions } from 'dockerode';
import { ConfigError } from '#shared/config/config.ts';
import { erpConfigDir } from '../erpConfigFile.ts';
import type { ErpRunSpec } from '../runtime.ts';
import type { ErpImage } from './erpImage.ts';

/**
 * How an instance's containers look: names, labels, mounts and the ERP command line. Pure, so the
 * runtime's calls stay short.
 *
 * Folders inside the container follow the official `odoo` image: its data_dir /var/lib/odoo,
 * extra addons in /mnt/extra-addons (on its addons_path). Only the tenant's own leaves are mounted
 * writable (filestore, sessions, addons under the data dir, and a HOME): no folder root works in
 * by path reaches the container. The ERP gets no --logfile: what it prints reaches the log through
 * the engine (containerLog.ts).
 */
export type NetworkMode = 'bridge' | 'host';

/** The ERP's HTTP port inside the container (bridge mode); published on 127.0.0.1 only. */
export const ERP_PORT = 8069;

const IN_CONTAINER = { data: '/var/lib/odoo', addons: '/mnt/extra-addons', home: '/home/forja', config: '/etc/forja' } as const;
/** What the ERP writes in its data dir (odoo/tools/config.py: filestore(), session_dir, addons_data_dir). */
const WRITTEN = ['filestore', 'sessions', 'addons'] as const;

/**
 * What the generated configuration file (erpConfigFile.ts, mounted read-only at /etc/forja) adds
 * to the database manager's options. With `-c` the ERP no longer reads the image's own
 * /etc/odoo/odoo.conf, so the addons path it set goes here when the instance's code is mounted
 * there (in the file, not on the command line, where 16.0–18.0 refuse a folder without modules).
 */
export const containerConfigOptions = (spec: ErpRunSpec): Record<string, string> => (spec.sourceDir ? { addons_path: IN_CONTAINER.addons } : {});

export const LABELS = {
  instance: 'forja.instance',
  /** `erp` for the instance's server, `run` for one-shot runs. */
  role: 'forja.role',
  database: 'forja.database',
  /** The port on 127.0.0.1 where the server answers. */
  hostPort: 'forja.host-port',
} as const;

export const erpContainerName = (slug: string): string => `forja-${slug}-erp`;
/** One name per instance: a run an earlier executor left behind is found, and removed, by it. */
export const oneShotContainerName = (slug: string): string => `forja-${slug}-oneshot`;
export const networkName = (slug: string): string => `forja-${slug}`;

/** Where the ERP listens: on its own network with a port published on 127.0.0.1, or on the host's 127.0.0.1. */
export interface Placement {
  mode: NetworkMode;
  hostPort: number;
  instanceDomain: string | undefined;
}

const LOOPBACK = /^(127\.|localhost$|::1$)/;

/** In bridge mode 127.0.0.1 is the container itself, so a database there can never answer. */
export function assertDatabaseReachable(spec: ErpRunSpec, mode: NetworkMode): void {
  if (mode === 'bridge' && LOOPBACK.test(spec.db.host)) {
    throw new ConfigError(
      `FORJA_DOCKER_NETWORK_MODE=bridge: the ERP database server ${spec.db.host}:${spec.db.port} is on the host's loopback, ` +
        'which containers on a bridge network cannot reach. Give the instances a database address containers can reach, or set FORJA_DOCKER_NETWORK_MODE=host.',
    );
  }
}

/**
 * The arguments every ERP run gets. The password travels in the environment: PGPASSWORD for
 * libpq and node-postgres, PASSWORD (with HOST, PORT, USER) for the official image's entrypoint,
 * which otherwise appends its own defaults (`--db_host db`). `-c`: the file the runtime writes
 * before each container (erpConfigFile.ts), which closes the database manager.
 */
export function erpArgs(spec: ErpRunSpec): string[] {
  return [
    '-c', `${IN_CONTAINER.config}/erp.conf`,
    '-d', spec.database,
    '--db_host', spec.db.host,
    '--db_port', String(spec.db.port),
    '--db_user', spec.db.user,
    '--data-dir', IN_CONTAINER.data,
  ];
}

function erpEnv(spec: ErpRunSpec): string[] {
  const { host, port, user, password } = spec.db;
  // FORJA_STANDIN_VERSION: the ERP stand-in's version (module versions, upgrades); a real ERP image ignores it.
  return [`PGPASSWORD=${password}`, `HOST=${host}`, `PORT=${port}`, `USER=${user}`, `PASSWORD=${password}`, `HOME=${IN_CONTAINER.home}`, `FORJA_STANDIN_VERSION=${spec.erpVersion}`];
}

function binds(spec: ErpRunSpec, image: ErpImage): string[] {
  return [
    ...WRITTEN.map((leaf) => `${join(resolve(spec.dataDir), leaf)}:${IN_CONTAINER.data}/${leaf}`),
    `${join(resolve(spec.dataDir), 'home')}:${IN_CONTAINER.home}`,
    // The folder, not the file: a file mount would keep the replaced file's inode after the next start rewrites it.
    `${erpConfigDir(spec.dataDir)}:${IN_CONTAINER.config}:ro`,
    ...(spec.sourceDir ? [`${resolve(spec.sourceDir)}:${IN_CONTAINER.addons}:ro`] : []),
    ...(image.hostFolder ? [`${image.hostFolder}:${image.hostFolder}:ro`] : []),
  ];
}

/** Labels a reverse proxy watching the engine (Traefik's docker provider) routes `<slug>.<domain>` by. */
export function routingLabels(slug: string, domain: string, placement: Pick<Placement, 'mode' | 'hostPort'>): Record<string, string> {
  const name = `forja-${slug}`;
  return {
    'traefik.enable': 'true',
    [`traefik.http.routers.${name}.rule`]: `Host(\`${slug}.${domain}\`)`,
    [`traefik.http.routers.${name}.service`]: name,
    [`traefik.http.services.${name}.loadbalancer.server.port`]: String(placement.mode === 'bridge' ? ERP_PORT : placement.hostPort),
    ...(placement.mode === 'bridge' ? { 'traefik.docker.network': networkName(slug) } : {}),
  };
}

/**
 * What every ERP container is held to: customer code runs in it. Not root (the host folders it
 * writes are the tenant account's leaves), no capabilities, no privilege gain through setuid files, and
 * bounded memory and process count, so one instance cannot take the machine down.
 */
export interface Confinement {
  /** Host uid:gid the container runs as (the tenant's account when the executor is root), else the image's user. */
  user: { uid: number; gid: number } | null;
  memoryBytes: number;
  pids: number;
}

function confined(confinement: Confinement) {
  return {
    user: confinement.user ? { User: `${confinement.user.uid}:${confinement.user.gid}` } : {},
    host: { CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'], Memory: confinement.memoryBytes, MemorySwap: confinement.memoryBytes, PidsLimit: confinement.pids },
  };
}

/** The instance's long-running ERP server. */
export function serverContainer(spec: ErpRunSpec, image: ErpImage, placement: Placement, confinement: Confinement): ContainerCreateOptions {
  const limits = confined(confinement);
  const bridge = placement.mode === 'bridge';
  const http = bridge ? ['--http-port', String(ERP_PORT), '--http-interface', '0.0.0.0'] : ['--http-port', String(placement.hostPort), '--http-interface', '127.0.0.1'];
  return {
    name: erpContainerName(spec.slug),
    Image: image.ref,
    Cmd: [...image.command, ...erpArgs(spec), ...http],
    Env: erpEnv(spec),
    ...limits.user,
    Labels: {
      [LABELS.instance]: spec.slug,
      [LABELS.role]: 'erp',
      [LABELS.database]: spec.database,
      [LABELS.hostPort]: String(placement.hostPort),
      ...(placement.instanceDomain ? routingLabels(spec.slug, placement.instanceDomain, placement) : {}),
    },
    ...(bridge ? { ExposedPorts: { [`${ERP_PORT}/tcp`]: {} } } : {}),
    HostConfig: {
      NetworkMode: bridge ? networkName(spec.slug) : 'host',
      Binds: binds(spec, image),
      ...(bridge ? { PortBindings: { [`${ERP_PORT}/tcp`]: [{ HostIp: '127.0.0.1', HostPort: String(placement.hostPort) }] } } : {}),
      RestartPolicy: { Name: 'no' },
      ...limits.host,
    },
  };
}

/**
 * A one-shot run (`-i sale --stop-after-init`): no HTTP, same mounts and network as the server.
 * With `subcommand` (`neutralize`) the image's command is followed by it, as odoo/cli/command.py
 * reads it, and gets no `--no-http` (a server option, not every command's).
 */
export function oneShotContainer(spec: ErpRunSpec, image: ErpImage, mode: NetworkMode, name: string, args: string[], confinement: Confinement, subcommand?: string): ContainerCreateOptions {
  const limits = confined(confinement);
  return {
    name,
    Image: image.ref,
    Cmd: subcommand ? [...image.command, subcommand, ...erpArgs(spec), ...args] : [...image.command, ...erpArgs(spec), '--no-http', ...args],
    Env: erpEnv(spec),
    ...limits.user,
    Labels: { [LABELS.instance]: spec.slug, [LABELS.role]: 'run', [LABELS.database]: spec.database },
    HostConfig: {
      NetworkMode: mode === 'bridge' ? networkName(spec.slug) : 'host',
      Binds: binds(spec, image),
      RestartPolicy: { Name: 'no' },
      ...limits.host,
    },
  };
}
