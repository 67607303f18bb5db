import { getInstance } from '#projections/instances/instanceDetail.ts';
import { allInstances } from '#projections/instances/instanceList.ts';
import type { ReadModel } from '#projections/readModel.ts';
import { handleCommand } from '#shared/decider/handleCommand.ts';
import { causedByLast } from '#shared/decider/systemMetadata.ts';
import type { EventStore } from '#shared/eventStore/eventStore.ts';
import type { Logger } from '#shared/log.ts';
import { instanceLogFile } from '#shared/platform/dataPaths.ts';
import { instanceDecider } from '#services/instances/domain/instance.decider.ts';
import { instanceStream } from '#services/instances/domain/instance.ts';
import { logTail } from './logTail.ts';
import type { Runtime } from './runtime/runtime.ts';

/**
 * Marks instances failed when their ERP dies on its own: as the runtime notices, and once at
 * start for instances the read model says are running but the runtime has no server for (the
 * machine rebooted, say). The decider ignores the report while a job runs: the job reports itself.
 */
export function reportUnexpectedExits(options: { store: EventStore; runtime: Runtime; dataDir: string; logger: Logger }) {
  const report = async (slug: string, exitCode: number | null) => {
    const tail = logTail(options.dataDir, instanceLogFile(options.dataDir, slug, 'erp'));
    const result = await handleCommand(options.store, instanceDecider, instanceStream(slug), { type: 'ReportProcessExit', exitCode, logTail: tail }, { metadata: causedByLast('exit-reporter') });
    if (result.events.length) options.logger.warn({ slug, exitCode }, 'ERP exited unexpectedly; instance marked failed');
  };
  options.runtime.onUnexpectedExit((slug, exitCode) => void report(slug, exitCode).catch((error: unknown) => options.logger.error({ err: error, slug }, 'cannot report an ERP exit')));
  return {
    async reconcile(readModel: ReadModel): Promise<void> {
      const running = await options.runtime.running();
      for (const row of await allInstances(readModel, { status: 'running' })) {
        if (running.has(row.slug)) continue;
        // Another runtime's instances are not this executor's to judge.
        const detail = await getInstance(readModel, row.slug);
        if (detail?.runtime === options.runtime.kind) await report(row.slug, null);
      }
    },
  };
}
