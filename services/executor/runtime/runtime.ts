import type { TenantKind } from '#shared/local/tenantAccount.ts';

/**
 * The Runtime port: where an instance's ERP server runs. The executor's steps call it; each call
 * is idempotent, because a step interrupted by a crash runs again on redelivery.
 */

/** How the ERP reaches its database server. */
export interface ErpDatabaseServer {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** How the ERP server is sized: FORJA_ERP_WORKERS and the FORJA_ERP_LIMIT_* settings. */
export interface ErpServerSettings {
  /** 0: threaded mode, `/websocket` on the HTTP port; more: prefork workers and a gevent process on a port of its own. */
  workers: number;
  limitMemorySoftMb: number;
  limitMemoryHardMb: number;
  limitTimeCpuS: number;
  limitTimeRealS: number;
}

/** What a runtime needs to run one instance's ERP. */
export interface ErpRunSpec {
  slug: string;
  erpVersion: string;
  edition: string;
  /** The instance's database on `db`. */
  database: string;
  db: ErpDatabaseServer;
  /** The checkout root, or null when the instance has no repository. */
  sourceDir: string | null;
  /**
   * The ERP's whole addons path, in order (absolute host folders, addonsPath.ts): standard,
   * enterprise, then the checkout's folders that hold modules. Empty: the ERP's own default.
   */
  addonsPath: string[];
  /** The instance's own folder (filestore, runtime files); survives restarts, removed on destroy. */
  dataDir: string;
  /** The ERP's log file (`erp` source of the log viewer): its output goes here, opened by the runtime. */
  logFile: string;
  /** FORJA_DATA_DIR, Forja's own folder above `dataDir` and `logFile`: both are resolved from it without following links. */
  root: string;
  /** Whose OS account runs the ERP (tenantAccount.ts): the instance's, or the migration's. */
  tenant: { kind: TenantKind; slug: string };
  /** A development instance asked for the ERP's demo data (off everywhere else). */
  demoData?: boolean;
  /** Workers and limits of the ERP server (erpOptions.ts); absent: Odoo's defaults, threaded. */
  server?: ErpServerSettings;
  /**
   * The interpreter of the instance's own virtualenv when its checkout has `requirements.txt` files
   * (pythonEnv/requirementFiles.ts), built by the process runtime's `build`; null or absent = the command as
   * configured. The docker runtime ignores it: the image has its Python.
   */
  python?: string | null;
  /**
   * Variables for the ERP's environment from a migration recipe's `env` (OPENUPGRADE_TARGET_VERSION…).
   * They never replace what the runtime sets itself (PATH, HOME, the stand-in's version, ODOO_RC).
   */
  env?: Readonly<Record<string, string>>;
}

/** A one-shot ERP run (`-i a,b --stop-after-init`) that did not exit 0. */
export class ErpRunError extends Error {
  override readonly name = 'ErpRunError';
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly logTail: string[],
  ) {
    super(message);
  }
}

/** Where a started ERP answers on 127.0.0.1: HTTP, and `/websocket` when it runs a gevent process (workers on). */
export interface ErpServerUrls {
  url: string;
  geventUrl?: string;
}

export interface Runtime {
  readonly kind: 'process' | 'docker';
  /** One line for the start-up banner and the instance page. */
  describe(): string;
  /** True when instances of this ERP version run on Forja's ERP stand-in rather than a real ERP. */
  usesStandin(erpVersion: string): boolean;
  /** Makes ready what `start` runs (checks the command, builds or finds the image). */
  build(spec: ErpRunSpec): Promise<void>;
  /** Runs the ERP once with `args` added (e.g. `-i sale --stop-after-init`); rejects with ErpRunError unless it exits 0. */
  runOnce(spec: ErpRunSpec, args: string[], signal?: AbortSignal): Promise<void>;
  /**
   * Runs an ERP command once (`odoo-bin <subcommand> <the instance's arguments> <args>`, e.g.
   * `neutralize -d DB`, which a real ERP has since 16.0), as `runOnce` runs the server; rejects with
   * ErpRunError unless it exits 0 (an ERP without the command: exit 1, "Unknown command" in the log tail).
   */
  runCommand(spec: ErpRunSpec, subcommand: string, args: string[], signal?: AbortSignal): Promise<void>;
  /**
   * Starts the ERP server on `port` (the instance's own, kept across starts), or keeps the one
   * already running for this instance (after an executor crash the server started by the lost
   * attempt is adopted, not doubled). Resolves with its base URL on 127.0.0.1 once the process or
   * container is up (not necessarily answering yet). Rejects with PortTakenError, naming the
   * holder, when something else listens on the port. With workers (`spec.server`), `geventPort`
   * is the gevent process's (`/websocket`), required, and its URL is returned too.
   */
  start(spec: ErpRunSpec, port: number, geventPort?: number): Promise<ErpServerUrls>;
  /** Stops the server (SIGTERM, then SIGKILL after a grace period); a stopped one is fine. */
  stop(slug: string): Promise<void>;
  /** Removes everything this runtime made for the instance (processes, containers, networks, volumes). */
  destroy(slug: string): Promise<void>;
  /** Instances whose server is up, with their URL. */
  running(): Promise<Map<string, string>>;
  /**
   * Calls `onExit` when a server started by `start` dies without `stop` or `destroy` asking for
   * it, so the instance is marked failed.
   */
  onUnexpectedExit(listener: (slug: string, exitCode: number | null) => void): void;
  close(): Promise<void>;
}
