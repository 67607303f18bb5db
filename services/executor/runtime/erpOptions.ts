import type { ErpRunSpec, ErpServerSettings } from './runtime.ts';

export type { ErpServerSettings } from './runtime.ts';

/**
 * What goes in an ERP run's configuration file (erpConfigFile.ts writes it), by the names
 * odoo/tools/config.py gives its options. The runtimes only say where things are for the ERP
 * (the data folder inside a container is not the host's) and whether the run is the server.
 */

/** Odoo's own defaults (odoo/tools/config.py: 2048 MiB, 2560 MiB, 60 s, 120 s), threaded mode. */
export const DEFAULT_ERP_SERVER: ErpServerSettings = { workers: 0, limitMemorySoftMb: 2048, limitMemoryHardMb: 2560, limitTimeCpuS: 60, limitTimeRealS: 120 };

export interface ErpRunPlace {
  /** The data folder as the ERP sees it (its `data_dir`). */
  dataDir: string;
  /** The long-running server, not a one-shot run: only it gets workers (a one-shot run serves no HTTP). */
  server: boolean;
  /** Where the gevent process listens when workers are on (the server's second port). */
  geventPort?: number | undefined;
}

const MIB = 1024 * 1024;

/** The ERP's options for `spec` (the addons path and other callers' options are added by the runtime). */
export function erpOptions(spec: ErpRunSpec, place: ErpRunPlace): Record<string, string> {
  const server = spec.server ?? DEFAULT_ERP_SERVER;
  const workers = place.server ? server.workers : 0;
  if (workers > 0 && place.geventPort === undefined) throw new Error(`the ERP of ${spec.slug} runs ${workers} workers but was given no gevent port for /websocket`);
  return {
    db_host: spec.db.host,
    db_port: String(spec.db.port),
    db_user: spec.db.user,
    db_password: spec.db.password,
    db_name: spec.database,
    // Always behind Forja's ERP router or a TLS proxy: links from X-Forwarded-Host/-Proto, the client from X-Forwarded-For (odoo/http.py).
    proxy_mode: 'True',
    ...demoOptions(spec.erpVersion, spec.demoData === true),
    data_dir: place.dataDir,
    workers: String(workers),
    limit_memory_soft: String(server.limitMemorySoftMb * MIB),
    limit_memory_hard: String(server.limitMemoryHardMb * MIB),
    limit_time_cpu: String(server.limitTimeCpuS),
    limit_time_real: String(server.limitTimeRealS),
    ...(workers > 0 ? { gevent_port: String(place.geventPort) } : {}),
  };
}

/**
 * Demo data: 16.0–18.0 install it unless `without_demo` names the modules (`all`); 19.0 installs
 * none unless `with_demo` (odoo/tools/config.py of each version), and still reads `without_demo`.
 */
export function demoOptions(erpVersion: string, demo: boolean): Record<string, string> {
  const major = Number.parseInt(erpVersion, 10);
  if (!demo) return { without_demo: 'all' };
  return major >= 19 ? { with_demo: 'True' } : { without_demo: 'False' };
}
