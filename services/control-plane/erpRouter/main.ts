import { runProcesses } from '#shared/platform/process.ts';
import { startErpRouterProcess } from './erpRouterProcess.ts';

await runProcesses('forja erp-router', [startErpRouterProcess]);
