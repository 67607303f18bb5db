/** One row per stream: how far it has got and what happened last. */
export interface StreamActivityTable {
  stream_id: string;
  category: string;
  version: number;
  last_event_type: string;
  last_event_at: Date;
  last_actor: string;
}

export interface StreamActivityDb {
  stream_activity: StreamActivityTable;
}
