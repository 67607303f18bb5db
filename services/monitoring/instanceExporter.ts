import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gauge, Registry } from 'prom-client';
import { runningErpPorts } from '#projections/instances/instanceDetail.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { databaseName } from '#shared/instanceDatabase/databaseName.ts';
import { isMonitoringAuthorization } from '#shared/monitoring/monitoringSecret.ts';
import { erpMemoryBytes, readErpServerRecord } from './erpMemory.ts';

/** Longest a health probe may take: an ERP slower than this counts as down for that scrape. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * One `/web/health` request: whether it answered 200, and how long it took. Straight to the ERP's
 * port, not through the ERP router: a probe is no visit, so it keeps no instance from sleeping.
 */
export async function probeErp(port: number): Promise<{ up: boolean; seconds: number }> {
  const started = performance.now();
  const up = await fetch(`http://127.0.0.1:${port}/web/health`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), redirect: 'manual' }).then(
    async (response) => {
      await response.body?.cancel();
      return response.status === 200;
    },
    () => false,
  );
  return { up, seconds: (performance.now() - started) / 1000 };
}

export interface InstanceExporter {
  /** `127.0.0.1:<port>`, for Prometheus' configuration. */
  address: string;
  close(): Promise<void>;
}

/**
 * Forja's own exporter of what Prometheus cannot scrape from an ERP: an ERP has no `/metrics`,
 * and its `/web/health` answers JSON, which Prometheus cannot parse. At every scrape it probes the
 * health of each running instance (up and response time, as the executor's health check does),
 * measures its memory from /proc (process runtime), and names its database, so a query can join
 * the PostgreSQL exporter's `pg_database_size_bytes{datname}` to the instance. This is simpler than
 * a blackbox exporter with service discovery files: the list of instances is one read-model query.
 * It answers only requests carrying `authorization` (the monitoring secret): tenants' code runs on
 * this machine, and must not read every instance's health and size.
 */
export async function startInstanceExporter(readModel: ReadModel, dataDir: string, authorization: string): Promise<InstanceExporter> {
  const registry = new Registry();
  const labelNames = ['instance_slug'] as const;
  const up = new Gauge({ name: 'forja_erp_up', help: '1 when the instance ERP answered /web/health with 200 at the last scrape', labelNames, registers: [registry] });
  const seconds = new Gauge({ name: 'forja_erp_health_seconds', help: 'time the ERP took to answer /web/health', labelNames, registers: [registry] });
  const memory = new Gauge({ name: 'forja_erp_memory_bytes', help: 'resident memory of the ERP server and its workers (process runtime)', labelNames, registers: [registry] });
  const database = new Gauge({ name: 'forja_erp_database_info', help: 'the database of the instance (1): joins pg_database_size_bytes{datname} to instance_slug', labelNames: ['instance_slug', 'datname'], registers: [registry] });

  async function collect(): Promise<void> {
    const erps = await runningErpPorts(readModel);
    const probes = await Promise.all(erps.map((erp) => probeErp(erp.port)));
    // Instances that stopped since the last scrape must not keep their last value.
    for (const gauge of [up, seconds, memory, database]) gauge.reset();
    erps.forEach((erp, index) => {
      const labels = { instance_slug: erp.slug };
      up.set(labels, probes[index]!.up ? 1 : 0);
      seconds.set(labels, probes[index]!.seconds);
      const record = readErpServerRecord(dataDir, erp.slug);
      const bytes = record?.port === erp.port ? erpMemoryBytes(record) : null;
      if (bytes !== null) memory.set(labels, bytes);
      // Every runtime's instance database is named after its slug, as the executor names it.
      database.set({ ...labels, datname: databaseName(erp.slug) }, 1);
    });
  }

  const server: Server = createServer((req, res) => {
    // As exporter-toolkit does for Prometheus and the PostgreSQL exporter: 401 before anything else.
    if (!isMonitoringAuthorization(req.headers.authorization, authorization)) return void res.writeHead(401, { 'www-authenticate': 'Basic realm="forja monitoring"' }).end();
    if (req.method !== 'GET' || req.url !== '/metrics') return void res.writeHead(404).end();
    collect()
      .then(() => registry.metrics())
      .then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`cannot collect: ${(error as Error).message}\n`),
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
