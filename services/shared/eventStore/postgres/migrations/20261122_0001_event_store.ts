import { sql, type Kysely } from 'kysely';

/**
 * The event store tables and the append function. Appends are serialized: `append` takes one
 * transaction-scoped advisory lock before it assigns global positions, so commit order equals
 * position order and a reader polling `global_position > checkpoint` never skips an event. The
 * lock, the compare-and-set on `streams` and the insert run in one statement, one round trip.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table event_store.streams (
    stream_id text primary key,
    version bigint not null
  )`.execute(db);
  await sql`create sequence event_store.global_position_seq`.execute(db);
  await sql`create table event_store.events (
    global_position bigint primary key,
    stream_id text not null,
    stream_version bigint not null,
    event_id uuid not null unique,
    event_type text not null,
    data jsonb not null,
    metadata jsonb not null,
    recorded_at timestamptz not null default clock_timestamp(),
    unique (stream_id, stream_version)
  )`.execute(db);
  await sql.raw(APPEND_FUNCTION).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function event_store.append(text, bigint, jsonb)`.execute(db);
  await sql`drop table event_store.events`.execute(db);
  await sql`drop sequence event_store.global_position_seq`.execute(db);
  await sql`drop table event_store.streams`.execute(db);
}

/*
 * expected_version: -1 = any, otherwise the version the stream must be at (0 = no stream).
 * events: [{id, type, data, metadata}, …]. Returns the stream's new version and the last position.
 * A batch whose first id is already stored is a re-append: the stored result comes back if it is
 * the same batch of the same stream, and `duplicate_event_id` is raised otherwise.
 * Errors carry SQLSTATE P0001 with the reason as message and the actual version as detail; an id
 * repeated inside one batch surfaces as a plain unique violation (23505).
 */
const APPEND_FUNCTION = `
create function event_store.append(p_stream text, p_expected bigint, p_events jsonb)
returns table (next_version bigint, last_global_position bigint)
language plpgsql as $$
declare
  v_count int := jsonb_array_length(p_events);
  v_current bigint;
  v_existing record;
  v_matching int;
begin
  perform pg_advisory_xact_lock(4242424242);

  select e.stream_id, e.stream_version into v_existing
    from event_store.events e where e.event_id = (p_events->0->>'id')::uuid;
  if found then
    select count(*) into v_matching
      from jsonb_array_elements(p_events) with ordinality as n(ev, i)
      join event_store.events e on e.event_id = (n.ev->>'id')::uuid
     where e.stream_id = p_stream and e.stream_version = v_existing.stream_version + n.i - 1;
    if v_existing.stream_id <> p_stream or v_matching <> v_count then
      raise exception 'duplicate_event_id' using detail = (p_events->0->>'id');
    end if;
    return query select e.stream_version, e.global_position from event_store.events e
      where e.stream_id = p_stream and e.stream_version = v_existing.stream_version + v_count - 1;
    return;
  end if;

  select s.version into v_current from event_store.streams s where s.stream_id = p_stream;
  v_current := coalesce(v_current, 0);
  if p_expected >= 0 and p_expected <> v_current then
    raise exception 'wrong_expected_version' using detail = v_current::text;
  end if;

  insert into event_store.streams as s (stream_id, version) values (p_stream, v_current + v_count)
    on conflict (stream_id) do update set version = excluded.version;

  -- jsonb_array_elements yields the array in order, so positions follow the batch order.
  return query
  with inserted as (
    insert into event_store.events (global_position, stream_id, stream_version, event_id, event_type, data, metadata)
    select nextval('event_store.global_position_seq'), p_stream, v_current + n.i,
           (n.ev->>'id')::uuid, n.ev->>'type', n.ev->'data', n.ev->'metadata'
      from jsonb_array_elements(p_events) with ordinality as n(ev, i)
    returning stream_version, global_position
  )
  select max(stream_version), max(global_position) from inserted;

  perform pg_notify('event_store_append', '');
end;
$$`;
