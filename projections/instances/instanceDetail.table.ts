import type { JSONColumnType } from 'kysely';
import type { InstanceSource } from '#services/instances/domain/instance.ts';
import type { InstanceOutColumns } from './instanceList.table.ts';

/** One instance's page and its InstanceOut: settings, status, current job, where it runs. */
export interface InstanceDetailTable extends InstanceOutColumns {
  /** jsonb: written as a JSON string, read back as the object. */
  source: JSONColumnType<InstanceSource>;
  created_by: string;
  /** `process` or `docker`, once a build step said where the ERP runs. */
  runtime: string | null;
  /** True when the ERP is Forja's stand-in, not a real ERP. */
  standin: boolean;
  /** The commit checked out: what the ERP runs. */
  commit: string | null;
  /** The branch head last seen (git or a push); differs from `commit` when the instance is behind. */
  branch_head: string | null;
  /** jsonb: the ERP's addons path the last build computed, in order (host folders); null before one. */
  addons_path: JSONColumnType<string[] | null, string | null, string | null>;
  /** The ERP's port on 127.0.0.1, kept across stops and starts once chosen. */
  port: number | null;
  /** A development instance asked for the ERP's demo data. */
  demo_data: boolean;
  /** With workers on: the gevent process's port on 127.0.0.1 (`/websocket`), kept like `port`. */
  gevent_port: number | null;
  /** Where that gevent process answers while the ERP runs: the ERP router's target for `/websocket`. */
  gevent_url: string | null;
  /** Which neutralization its database got at the last database step (the ERP's or Forja's SQL and why); null for production and empty databases. */
  neutralization: string | null;
  /** A database was created for it (until destroyed): `start` and `restart` have something to run. */
  provisioned: boolean;
  /** A push arrived during the current job: a rebuild follows when the job ends. */
  rebuild_pending: boolean;
  job_id: string;
  job_kind: string;
  job_active: boolean;
  /** The last request or action on it: the idle sweep puts development instances to sleep from here. */
  last_action_at: Date;
}

export interface InstanceDetailDb {
  instance_detail: InstanceDetailTable;
}
