import { startProjectorProcess } from '#projections/projectorProcess.ts';
import { startControlPlaneProcess } from '#services/control-plane/controlPlaneProcess.ts';
import { startErpRouterProcess } from '#services/control-plane/erpRouter/erpRouterProcess.ts';
import { startFirstAdminBootstrap } from '#services/control-plane/identity/firstAdmin.ts';
import { startAllInOneExecutor } from '#services/executor/executorProcess.ts';
import { startMailCatcherProcess } from '#services/mailcatcher/mailCatcherProcess.ts';
import { startPadronProcess } from '#services/padron/padronProcess.ts';
import { runProcesses } from '#shared/platform/process.ts';
import { startWebProcess } from '#web/webProcess.ts';

/**
 * `npm start`: every Forja process in one Node process, on the private local services by default.
 * The ERP servers it runs stop with it and the instances that were running come back with it.
 */
// The mail catcher starts before the processes that send mail to it (the executor's ERPs, notices).
await runProcesses('forja', [startMailCatcherProcess, startProjectorProcess, startControlPlaneProcess, startAllInOneExecutor, startErpRouterProcess, startWebProcess, startFirstAdminBootstrap, startPadronProcess]);
