import { startProjectorProcess } from '#projections/projectorProcess.ts';
import { startControlPlaneProcess } from '#services/control-plane/controlPlaneProcess.ts';
import { startErpRouterProcess } from '#services/control-plane/erpRouter/erpRouterProcess.ts';
import { startFirstAdminBootstrap } from '#services/control-plane/identity/firstAdmin.ts';
import { startDbAdminProcess } from '#services/dbadmin/dbAdminProcess.ts';
import { startAllInOneExecutor } from '#services/executor/executorProcess.ts';
import { startMailCatcherProcess } from '#services/mailcatcher/mailCatcherProcess.ts';
import { startMonitoringProcess } from '#services/monitoring/monitoringProcess.ts';
import { startPadronProcess } from '#services/padron/padronProcess.ts';
import { startToolPackages } from '#shared/local/toolPackages.ts';
import { runProcesses } from '#shared/platform/process.ts';
import { startWebProcess } from '#web/webProcess.ts';

/**
 * `npm start`: every Forja process in one Node process, on the private local services by default.
 * The ERP servers it runs stop with it and the instances that were running come back with it.
 */
// The tools' Debian packages are installed first (as root, when missing), as PostgreSQL is.
// The mail catcher starts before the processes that send mail to it (the executor's ERPs, notices);
// the database admin after the executor, which starts the instance databases' server it is pinned to;
// monitoring last, once the processes it scrapes and the instance databases' server are up.
await runProcesses('forja', [startToolPackages, startMailCatcherProcess, startProjectorProcess, startControlPlaneProcess, startAllInOneExecutor, startDbAdminProcess, startErpRouterProcess, startWebProcess, startFirstAdminBootstrap, startPadronProcess, startMonitoringProcess]);
