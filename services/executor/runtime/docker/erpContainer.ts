import { join, posix, relative, resolve } from 'node:path';
import type { ContainerCreateOptions } from 'dockerode';
import { ConfigError } from '#shared/config/config.ts';
import { erpConfigDir } from '../erpConfigFile.ts';
import { erpOptions } from '../erpOptions.ts';
import type { ErpRunSpec } from '../runtime.ts';
import type { Account } from './containerUser.ts';
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
/** The gevent process's port inside the container (bridge mode, workers on): Odoo's default, as the official image exposes it. */
export const GEVENT_PORT = 8072;

const IN_CONTAINER = { data: '/var/lib/odoo', addons: '/mnt/extra-addons', home: '/home/forja', config: '/etc/forja' } as const;
/** What the ERP writes in its data dir (odoo/tools/config.py: filestore(), session_dir, addons_data_dir). */
const WRITTEN = ['filestore', 'sessions', 'addons'] as const;

/** Where addons folders from outside the checkout (standard, enterprise: FORJA_ERP_ADDONS…) are mounted, one numbered folder each. */
const MORE_ADDONS = '/mnt/forja-addons';

/**
 * The addons path inside the container, and the read-only mounts it needs. The checkout is
 * mounted at /mnt/extra-addons as the official image expects it, so its folders keep their place
 * below it; a folder of the image's host folder (the stand-in's own addons) is already there at the
 * same path; any other host folder is mounted at /mnt/forja-addons/<n>.
 */
export function containerAddons(spec: ErpRunSpec, image: Pick<ErpImage, 'hostFolder'>): { path: string[]; binds: string[] } {
  const source = spec.sourceDir ? resolve(spec.sourceDir) : null;
  const below = (folder: string, parent: string) => folder === parent || folder.startsWith(`${parent}/`);
  const path: string[] = [];
  const binds: string[] = [];
  for (const folder of spec.addonsPath.map((item) => resolve(item))) {
    if (source && below(folder, source)) path.push(posix.join(IN_CONTAINER.addons, relative(source, folder)));
    else if (image.hostFolder && below(folder, image.hostFolder)) path.push(folder);
    else {
      const mountPoint = `${MORE_ADDONS}/${binds.length}`;
      binds.push(`${folder}:${mountPoint}:ro`);
      path.push(mountPoint);
    }
  }
  return { path, binds };
}

/**
 * The generated configuration file's options (erpConfigFile.ts, mounted read-only at /etc/forja),
 * with the container's own paths and ports, the addons path as the container sees it
 * (containerAddons). With `-c` the ERP no longer reads the image's own /etc/odoo/odoo.conf and its
 * `addons_path = /mnt/extra-addons`; the path is in the file, not on the command line.
 * `geventPort`: the host's port of the gevent process when the server runs workers.
 */
export function containerConfigOptions(
  spec: ErpRunSpec,
  image: Pick<ErpImage, 'hostFolder'>,
  run: { server: boolean; mode: NetworkMode; geventPort?: number | undefined },
): Record<string, string> {
  const geventPort = run.geventPort === undefined ? undefined : run.mode === 'bridge' ? GEVENT_PORT : run.geventPort;
  const { path } = containerAddons(spec, image);
  return {
    ...erpOptions(spec, { dataDir: IN_CONTAINER.data, server: run.server, geventPort }),
    ...(path.length > 0 ? { addons_path: path.join(',') } : {}),
  };
}

export const LABELS = {
  instance: 'forja.instance',
  /** `erp` for the instance's server, `run` for one-shot runs. */
  role: 'forja.role',
  database: 'forja.database',
  /** The port on 127.0.0.1 where the server answers. */
  hostPort: 'forja.host-port',
  /** The port on 127.0.0.1 where its gevent process answers `/websocket` (workers on). */
  hostGeventPort: 'forja.host-gevent-port',
} as const;

export const erpContainerName = (slug: string): string => `forja-${slug}-erp`;
/** One name per instance: a run an earlier executor left behind is found, and removed, by it. */
export const oneShotContainerName = (slug: string): string => `forja-${slug}-oneshot`;
export const networkName = (slug: string): string => `forja-${slug}`;

/** Where the ERP listens: on its own network with a port published on 127.0.0.1, or on the host's 127.0.0.1. */
export interface Placement {
  mode: NetworkMode;
  hostPort: number;
  /** The gevent process's port on the host, when the server runs workers. */
  hostGeventPort?: number | undefined;
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
 * The arguments every ERP run gets: the generated file holds every option, the database password
 * included, so neither the command line nor the environment carries it.
 */
export function erpArgs(spec: ErpRunSpec): string[] {
  return ['-c', `${IN_CONTAINER.config}/erp.conf`, '-d', spec.database];
}

/**
 * ODOO_RC names Forja's file, for any tool in the image that looks for the ERP's configuration
 * there (the official entrypoint's does). No password here: the ERP reads db_password from the file.
 */
function erpEnv(spec: ErpRunSpec): string[] {
  // FORJA_STANDIN_VERSION: the ERP stand-in's version (module versions, upgrades); a real ERP image ignores it.
  const own = { ODOO_RC: `${IN_CONTAINER.config}/erp.conf`, HOME: IN_CONTAINER.home, FORJA_STANDIN_VERSION: spec.erpVersion };
  return Object.entries({ ...spec.env, ...own }).map(([name, value]) => `${name}=${value}`);
}

function binds(spec: ErpRunSpec, image: ErpImage): string[] {
  return [
    ...WRITTEN.map((leaf) => `${join(resolve(spec.dataDir), leaf)}:${IN_CONTAINER.data}/${leaf}`),
    `${join(resolve(spec.dataDir), 'home')}:${IN_CONTAINER.home}`,
    // The folder, not the file: a file mount would keep the replaced file's inode after the next start rewrites it.
    `${erpConfigDir(spec.dataDir)}:${IN_CONTAINER.config}:ro`,
    ...(spec.sourceDir ? [`${resolve(spec.sourceDir)}:${IN_CONTAINER.addons}:ro`] : []),
    ...containerAddons(spec, image).binds,
    ...(image.hostFolder ? [`${image.hostFolder}:${image.hostFolder}:ro`] : []),
  ];
}

/**
 * The official image declares /var/lib/odoo and /mnt/extra-addons as volumes: without a mount of
 * their own the engine makes an anonymous volume for each at every start, owned by the image's
 * user. A small root-owned tmpfs instead: nothing the ERP could write to, gone with the container,
 * and the instance's leaves are bound below it.
 */
function volumeStandIns(spec: ErpRunSpec): Record<string, string> {
  const empty = 'rw,size=64k,mode=0755';
  return { [IN_CONTAINER.data]: empty, ...(spec.sourceDir ? {} : { [IN_CONTAINER.addons]: empty }) };
}

/**
 * Labels a reverse proxy watching the engine (Traefik's docker provider) routes `<slug>.<domain>`
 * by; with a gevent process (workers on), `/websocket` goes to its port, as the ERP router does.
 */
export function routingLabels(slug: string, domain: string, placement: Pick<Placement, 'mode' | 'hostPort' | 'hostGeventPort'>): Record<string, string> {
  const name = `forja-${slug}`;
  const bridge = placement.mode === 'bridge';
  const websocket = `${name}-websocket`;
  return {
    'traefik.enable': 'true',
    [`traefik.http.routers.${name}.rule`]: `Host(\`${slug}.${domain}\`)`,
    [`traefik.http.routers.${name}.service`]: name,
    [`traefik.http.services.${name}.loadbalancer.server.port`]: String(bridge ? ERP_PORT : placement.hostPort),
    ...(placement.hostGeventPort
      ? {
          [`traefik.http.routers.${websocket}.rule`]: `Host(\`${slug}.${domain}\`) && Path(\`/websocket\`)`,
          [`traefik.http.routers.${websocket}.service`]: websocket,
          [`traefik.http.services.${websocket}.loadbalancer.server.port`]: String(bridge ? GEVENT_PORT : placement.hostGeventPort),
        }
      : {}),
    ...(bridge ? { 'traefik.docker.network': networkName(slug) } : {}),
  };
}

/**
 * What every ERP container is held to: customer code runs in it. Not the image's user but the
 * account that owns the instance's folders and configuration file (containerUser.ts), no
 * capabilities, no privilege gain through setuid files, and bounded memory and process count, so
 * one instance cannot take the machine down.
 */
export interface Confinement {
  /** Host uid:gid the container runs as (containerAccount). */
  user: Account;
  memoryBytes: number;
  pids: number;
}

function confined(confinement: Confinement) {
  return {
    user: { User: `${confinement.user.uid}:${confinement.user.gid}` },
    host: { CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'], Memory: confinement.memoryBytes, MemorySwap: confinement.memoryBytes, PidsLimit: confinement.pids },
  };
}

/**
 * The image's ERP command is the container's entrypoint: the image's own ENTRYPOINT does not run.
 * The official one (odoo/docker `<version>/entrypoint.sh`) appends `--db_host --db_port --db_user
 * --db_password` to the command line, always up to 18.0 (the password then shows in `ps` on the
 * host), and on 19.0 whenever it cannot read the file; and it waits for a database Forja has just
 * made. Forja's configuration file already holds all four.
 */
const entrypoint = (image: ErpImage) => ({ Entrypoint: image.command });

/** The instance's long-running ERP server. */
export function serverContainer(spec: ErpRunSpec, image: ErpImage, placement: Placement, confinement: Confinement): ContainerCreateOptions {
  const limits = confined(confinement);
  const bridge = placement.mode === 'bridge';
  const gevent = placement.hostGeventPort;
  const http = bridge ? ['--http-port', String(ERP_PORT), '--http-interface', '0.0.0.0'] : ['--http-port', String(placement.hostPort), '--http-interface', '127.0.0.1'];
  const ports = { [`${ERP_PORT}/tcp`]: [{ HostIp: '127.0.0.1', HostPort: String(placement.hostPort) }], ...(gevent ? { [`${GEVENT_PORT}/tcp`]: [{ HostIp: '127.0.0.1', HostPort: String(gevent) }] } : {}) };
  return {
    name: erpContainerName(spec.slug),
    Image: image.ref,
    ...entrypoint(image),
    Cmd: [...erpArgs(spec), ...http],
    Env: erpEnv(spec),
    ...limits.user,
    Labels: {
      [LABELS.instance]: spec.slug,
      [LABELS.role]: 'erp',
      [LABELS.database]: spec.database,
      [LABELS.hostPort]: String(placement.hostPort),
      ...(gevent ? { [LABELS.hostGeventPort]: String(gevent) } : {}),
      ...(placement.instanceDomain ? routingLabels(spec.slug, placement.instanceDomain, placement) : {}),
    },
    ...(bridge ? { ExposedPorts: Object.fromEntries(Object.keys(ports).map((port) => [port, {}])) } : {}),
    HostConfig: {
      NetworkMode: bridge ? networkName(spec.slug) : 'host',
      Binds: binds(spec, image),
      Tmpfs: volumeStandIns(spec),
      ...(bridge ? { PortBindings: ports } : {}),
      RestartPolicy: { Name: 'no' },
      ...limits.host,
    },
  };
}

/** Where host folders named by `--upgrade-path` are mounted, one numbered folder each. */
const UPGRADE_PATHS = '/mnt/forja-upgrade';

/**
 * A run's arguments as the container sees them: the folders of `--upgrade-path` (a recipe's
 * `${paths.upgrade}`, a host path: OpenUpgrade's scripts) are mounted read-only at
 * /mnt/forja-upgrade/<n> and the argument names those. A folder of the image's host folder (the
 * stand-in's own scripts) is already there at the same path.
 */
export function containerRunArgs(args: readonly string[], image: Pick<ErpImage, 'hostFolder'>): { args: string[]; binds: string[] } {
  const binds: string[] = [];
  const mapped = (list: string) =>
    list
      .split(',')
      .map((folder) => {
        const host = resolve(folder.trim());
        if (image.hostFolder && (host === image.hostFolder || host.startsWith(`${image.hostFolder}/`))) return host;
        const mountPoint = `${UPGRADE_PATHS}/${binds.length}`;
        binds.push(`${host}:${mountPoint}:ro`);
        return mountPoint;
      })
      .join(',');
  const out: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg.startsWith('--upgrade-path=')) out.push(`--upgrade-path=${mapped(arg.slice('--upgrade-path='.length))}`);
    else if (arg === '--upgrade-path' && index + 1 < args.length) out.push(arg, mapped(args[++index]!));
    else out.push(arg);
  }
  return { args: out, binds };
}

/**
 * A one-shot run (`-i sale --stop-after-init`): no HTTP, same mounts and network as the server.
 * With `subcommand` (`neutralize`) the image's command is followed by it, as odoo/cli/command.py
 * reads it, and gets no `--no-http` (a server option, not every command's).
 */
export function oneShotContainer(spec: ErpRunSpec, image: ErpImage, mode: NetworkMode, name: string, args: string[], confinement: Confinement, subcommand?: string): ContainerCreateOptions {
  const limits = confined(confinement);
  const run = containerRunArgs(args, image);
  return {
    name,
    Image: image.ref,
    ...entrypoint(image),
    Cmd: subcommand ? [subcommand, ...erpArgs(spec), ...run.args] : [...erpArgs(spec), '--no-http', ...run.args],
    Env: erpEnv(spec),
    ...limits.user,
    Labels: { [LABELS.instance]: spec.slug, [LABELS.role]: 'run', [LABELS.database]: spec.database },
    HostConfig: {
      NetworkMode: mode === 'bridge' ? networkName(spec.slug) : 'host',
      Binds: [...binds(spec, image), ...run.binds],
      Tmpfs: volumeStandIns(spec),
      RestartPolicy: { Name: 'no' },
      ...limits.host,
    },
  };
}
