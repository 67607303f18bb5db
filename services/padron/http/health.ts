import type { Request, Response } from 'express';
import type { Pool } from '#shared/db.ts';
import type { PadronRegistry } from '../lookup/registry.ts';
import { sendDetail, sendJson } from './respond.ts';

const DATABASE_TIMEOUT_MS = 2000;

/**
 * `/health`: 200 with the rates per jurisdiction, and the rows among them kept although their
 * CUIT's check digit does not verify, when the database answers; 503 when it does not.
 * Lookups keep answering from memory while the database is down, but a new publish would not be
 * seen, so the service reports itself unhealthy.
 */
export function healthHandler(pool: Pool, registry: PadronRegistry) {
  return async (_req: Request, res: Response): Promise<void> => {
    const reachable = await Promise.race([
      pool.query({ name: 'padron.health', text: 'select 1' }).then(() => true),
      new Promise<string>((resolve) => setTimeout(() => resolve(`no answer within ${DATABASE_TIMEOUT_MS} ms`), DATABASE_TIMEOUT_MS).unref()),
    ]).catch((error: Error) => error.message);
    if (reachable !== true) {
      sendDetail(res, 503, `database unreachable: ${reachable}`);
      return;
    }
    const rows: Record<string, number> = {};
    const warned: Record<string, number> = {};
    const counted = new Set<number>();
    for (const slot of registry.current.slots) {
      if (!counted.has(slot.load.loadId)) {
        rows[slot.state] = (rows[slot.state] ?? 0) + slot.load.rows;
        warned[slot.state] = (warned[slot.state] ?? 0) + slot.load.rowsWarned;
      }
      counted.add(slot.load.loadId);
    }
    sendJson(res, 200, JSON.stringify({ status: 'ok', rows, check_digit_warnings: warned }));
  };
}
