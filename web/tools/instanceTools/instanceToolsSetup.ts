import { ensureSystemUser, type SystemUser } from '#shared/local/systemUser.ts';
import type { WebContext } from '../../context.ts';
import type { WebTool } from '../webTools.ts';
import { instanceToolSpecs } from './instanceTools.ts';
import type { InstanceToolSpec } from './instanceToolSpec.ts';
import { instanceWebTools } from './instanceWebTools.ts';
import { toolSupervisor, type ToolSupervisor } from './toolSupervisor.ts';

/** The account instances' code runs as (the executor's ERP_OS_USER): tools run the instance's code too. */
export const TOOL_OS_USER = 'forja-erp';

/** `90s`, `30m`, `24h`, `7d` in milliseconds (the settings' duration syntax, as FORJA_SLEEP_AFTER). */
export function durationMs(text: string): number {
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[text.slice(-1)] ?? NaN;
  return Number(text.slice(0, -1)) * unit;
}

/** Never root: as root, tools run as `forja-erp` (created when missing); otherwise as web's own unprivileged user. */
export function toolAccount(): SystemUser | null {
  return process.getuid?.() === 0 ? ensureSystemUser(TOOL_OS_USER) : null;
}

export interface InstanceTools {
  tools: WebTool[];
  supervisor: ToolSupervisor;
}

/** Web's per-instance tools (notebook and code editors) and the supervisor that starts and stops them. */
export function instanceTools(ctx: WebContext, dataDir: string, specs: InstanceToolSpec[] = instanceToolSpecs): InstanceTools {
  const supervisor = toolSupervisor({ dataDir, idleMs: durationMs(ctx.settings.FORJA_TOOL_IDLE), logger: ctx.logger, account: toolAccount });
  return { tools: instanceWebTools(ctx, supervisor, specs), supervisor };
}
