import { startProjectorProcess } from '#projections/projectorProcess.ts';
import { startControlPlaneProcess } from '#services/control-plane/controlPlaneProcess.ts';
import { startFirstAdminBootstrap } from '#services/control-plane/identity/firstAdmin.ts';
import { startAllInOneExecutor } from '#services/executor/executorProcess.ts';
import { startPadronProcess } from '#services/padron/padronProcess.ts';
import { runProcesses } from '#shared/platform/process.ts';
import { startWebProcess } from '#web/webProcess.ts';

/**
 * `npm start`: every Forja process in one Node process, on the private local services by default.
 * The ERP servers it runs stop with it and the instances that were running come back with it.
 */
await runProcesses('forja', [startProjectorProcess, startControlPlaneProcess, startAllInOneExecutor, startWebProcess, startFirstAdminBootstrap, startPadronProcess]);
