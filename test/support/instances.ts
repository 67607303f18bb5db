import { basic } from './platform.ts';
import { waitUntil } from './wait.ts';

/** InstanceOut as the tests read it. */
export interface InstanceBody {
  slug: string;
  status: string;
  url: string | null;
  last_error: string | null;
  commit: string | null;
  branch_head?: string | null;
  behind?: boolean;
  rebuild_pending?: boolean;
  runtime: string | null;
  standin: boolean;
  modules: string[];
  job: { id: string; kind: string; active: boolean; steps: Array<{ step: string; state: string; attempts: number; duration_ms: number | null; error: string | null }> };
}

/** A small client of the instance API, acting as `as` (a developer by default). */
export function instanceClient(api: string, as: string) {
  const call = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', basic(as));
    if (init.json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${api}${path}`, { ...init, headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) });
  };
  const get = async (slug: string) => (await (await call(`/api/v1/instances/${slug}`)).json()) as InstanceBody;
  return {
    call,
    get,
    async create(json: Record<string, unknown>): Promise<InstanceBody> {
      const res = await call('/api/v1/instances', { method: 'POST', json });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as InstanceBody;
    },
    async act(slug: string, action: string): Promise<InstanceBody> {
      const res = await call(`/api/v1/instances/${slug}/action`, { method: 'POST', json: { action } });
      if (res.status !== 200) throw new Error(`${action} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as InstanceBody;
    },
    /** Waits until the instance's job ended in `status`; fails early, with the error, when it ends otherwise. */
    async settled(slug: string, status: string, timeoutMs = 60_000): Promise<InstanceBody> {
      let last: InstanceBody | undefined;
      await waitUntil(
        async () => {
          last = await get(slug);
          if (!last.job.active && last.status !== status && last.status !== 'queued') {
            throw new Error(`${slug} ended ${last.status} instead of ${status}: ${last.last_error ?? ''}`);
          }
          // The job's steps come from another read model (instance_job_steps): under load it can trail the status by a batch.
          const stepsCaughtUp = !last.job.steps.some((step) => step.state === 'running');
          return !last.job.active && last.status === status && stepsCaughtUp;
        },
        `${slug} to be ${status}`,
        timeoutMs,
      );
      return last!;
    },
  };
}
