import type { Owner } from '#shared/fs/beneath.ts';

/**
 * What a per-instance tool (notebook editor, code editor) tells the supervisor: how to start it,
 * how to reach it and how the proxy authenticates to it. The supervisor (instanceToolSupervisor.ts)
 * starts one per instance and kind on first use and stops it after FORJA_TOOL_IDLE.
 */

/** Everything a tool's command line may need for one start. */
export interface InstanceToolLaunch {
  slug: string;
  /** FORJA_DATA_DIR/instances/<slug> */
  instanceDir: string;
  /** The instance's source checkout (`<instanceDir>/src`), null when it has none. */
  sourceDir: string | null;
  /** A folder of the tool's own (`<instanceDir>/tools/<kind>`), writable by the account the tool runs as. */
  workDir: string;
  /**
   * workDir as root may reach it: `relative` (`<slug>/tools/<kind>`) below the trusted `base`
   * (FORJA_DATA_DIR/instances), through beneath.ts, never by path (the tenant writes in it).
   */
  folder: { base: string; relative: string };
  /** The instance's account the tool runs as; null: web's own (web is not root). */
  owner: Owner | null;
  /** The private 127.0.0.1 port to listen on (when `listen` is 'port'). */
  port: number;
  /** The unix socket to listen on (when `listen` is 'socket'), in a folder only Forja and the tool's user can reach. */
  socketPath: string;
  /** The same, as a trusted base (root's) and the part below it (see `folder`). */
  socket: { base: string; relative: string };
  /** The socket opened by handle and checked once the tool bound it (toolSocket.ts); null before. */
  socketHandle: number | null;
  /** A random secret made for this start; the proxy sends it with `injectHeaders`, the browser never sees it. */
  token: string;
  /** Where web serves the tool, without a trailing slash: `/instances/acme-dev/code/proxy`. */
  basePath: string;
}

export type InstanceToolKind = 'editor' | 'code';

export interface InstanceToolSpec {
  /** URL segment: /instances/{slug}/{kind}/proxy/{path} */
  kind: InstanceToolKind;
  /** What the 502 page says is down: 'The notebook editor'. */
  label: string;
  /** null when its binary exists, else why not (shown on the page, naming the package to install). */
  available(): string | null;
  command(launch: InstanceToolLaunch): { file: string; args: string[]; env: Record<string, string> };
  listen: 'port' | 'socket';
  /** true: the tool is served at / and the proxy strips basePath; false: the tool knows its basePath. */
  stripBasePath: boolean;
  /** Added to every proxied request and WebSocket; never sent to the browser. */
  injectHeaders(token: string): Record<string, string>;
  /** Polled (with injectHeaders, below basePath unless stripBasePath) until it answers < 500. */
  readyPath: string;
  /** Extra script sources beyond 'self' the tool's pages need (see toolContentSecurityPolicy). */
  scriptSources?: string[];
  /**
   * Makes what the tool needs before each start, run by web (root, maybe): folders below workDir,
   * links, always through toolFolder.ts, owned by `launch.owner`.
   */
  prepare?(launch: InstanceToolLaunch): void;
}
