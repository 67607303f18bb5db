import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import pg from 'pg';

/** Rows at scale 1, the database the restore timings were first measured on (1,256 MB); sizes scale linearly. */
const BASE = { partners: 200_000, moves: 1_000_000, linesPerMove: 4, messages: 1_500_000 };

/**
 * An ERP-like database, generated in SQL: partners, journal entries (moves) with four lines
 * each, chatter messages, the small tables they point at, and the primary keys, foreign keys
 * and indexes an ERP keeps on them. Values come from the row number (md5 and modulo, no
 * random()), so every run generates the same data. Tables are filled first and constrained
 * afterwards, as a restore does it.
 */
export function erpDatabaseSql(scale: number): string[] {
  const n = (count: number) => Math.max(10, Math.round(count * scale));
  const partners = n(BASE.partners);
  const moves = n(BASE.moves);
  const messages = n(BASE.messages);
  return [
    `create table res_country (id int not null, code char(2) not null, name varchar not null)`,
    `insert into res_country select i, chr(65 + i / 26 % 26) || chr(65 + i % 26), 'Country ' || i from generate_series(1, 250) i`,
    `create table account_account (id int not null, code varchar not null, name varchar not null, account_type varchar not null, reconcile boolean not null)`,
    `insert into account_account select i, (100000 + i * 10)::text, 'Account ' || md5(i::text), (array['asset_receivable','liability_payable','income','expense','asset_cash'])[1 + i % 5], i % 5 < 2 from generate_series(1, 500) i`,
    `create table account_journal (id int not null, code varchar not null, name varchar not null, type varchar not null)`,
    `insert into account_journal select i, 'J' || i, 'Journal ' || i, (array['sale','purchase','bank','cash','general'])[1 + i % 5] from generate_series(1, 20) i`,
    `create table res_partner (id int not null, name varchar not null, display_name varchar, email varchar, phone varchar, street varchar, city varchar, zip varchar,
       country_id int, vat varchar, is_company boolean not null, active boolean not null, parent_id int, comment text, create_date timestamp not null, write_date timestamp not null)`,
    `insert into res_partner select i, 'Partner ' || md5(i::text), 'Partner ' || md5(i::text) || ', ' || i, 'contact' || i || '@example' || (i % 97) || '.com', '+54 11 ' || lpad((i::bigint * 7919 % 100000000)::text, 8, '0'),
       'Calle ' || (i % 5000) || ' ' || (i % 3000), 'City ' || (i % 1200), lpad((i % 9999)::text, 4, '0'), 1 + i % 250, '30' || lpad((i::bigint * 104729 % 100000000)::text, 8, '0') || (i % 10),
       i % 5 = 0, i % 50 <> 0, case when i % 5 <> 0 and i > 5 then i - i % 5 end, case when i % 3 = 0 then repeat(md5((i * 3)::text), 2) end,
       timestamp '2018-01-01' + (i % 2000) * interval '1 day', timestamp '2023-01-01' + (i % 600) * interval '1 day' from generate_series(1, ${partners}) i`,
    `create table account_move (id int not null, name varchar not null, ref varchar, date date not null, state varchar not null, move_type varchar not null, partner_id int, journal_id int not null,
       amount_untaxed numeric(16,2) not null, amount_tax numeric(16,2) not null, amount_total numeric(16,2) not null, narration text, create_date timestamp not null, write_date timestamp not null)`,
    `insert into account_move select i, 'INV/' || (2018 + i % 6) || '/' || lpad(i::text, 7, '0'), case when i % 4 = 0 then 'REF-' || md5(i::text) end, date '2018-01-01' + i % 2190,
       (array['posted','posted','posted','draft','cancel'])[1 + i % 5], (array['out_invoice','in_invoice','entry','out_refund'])[1 + i % 4], 1 + i * 7 % ${partners}, 1 + i % 20,
       (i % 100000) / 10.0, (i % 100000) / 47.6, (i % 100000) / 10.0 + (i % 100000) / 47.6, case when i % 10 = 0 then 'Note ' || md5(i::text) end,
       timestamp '2018-01-01' + i % 2190 * interval '1 day', timestamp '2018-01-01' + i % 2190 * interval '1 day' + interval '2 hours' from generate_series(1, ${moves}) i`,
    `create table account_move_line (id bigint not null, move_id int not null, partner_id int, account_id int not null, name varchar, debit numeric(16,2) not null, credit numeric(16,2) not null,
       balance numeric(16,2) not null, quantity numeric not null, price_unit numeric not null, date date not null, reconciled boolean not null, create_date timestamp not null)`,
    `insert into account_move_line select i, (i - 1) / ${BASE.linesPerMove} + 1, 1 + ((i - 1) / ${BASE.linesPerMove} + 1) * 7 % ${partners}, 1 + i * 13 % 500, 'Line ' || md5(i::text),
       case when i % 2 = 0 then (i % 100000) / 40.0 else 0 end, case when i % 2 = 1 then (i % 100000) / 40.0 else 0 end, case when i % 2 = 0 then 1 else -1 end * (i % 100000) / 40.0,
       1 + i % 12, (i % 100000) / 40.0, date '2018-01-01' + (i - 1) / ${BASE.linesPerMove} % 2190, i % 3 = 0, timestamp '2018-01-01' + (i - 1) / ${BASE.linesPerMove} % 2190 * interval '1 day'
       from generate_series(1, ${moves * BASE.linesPerMove}) i`,
    `create table mail_message (id int not null, model varchar not null, res_id int not null, author_id int, subject varchar, body text, message_type varchar not null, date timestamp not null, create_date timestamp not null)`,
    `insert into mail_message select i, case when i % 3 = 0 then 'res.partner' else 'account.move' end, case when i % 3 = 0 then 1 + i % ${partners} else 1 + i % ${moves} end, 1 + i * 11 % ${partners},
       case when i % 4 = 0 then 'Re: ' || md5(i::text) end, '<p>' || repeat(md5(i::text) || ' ', 1 + i % 4) || '</p>', (array['comment','notification','email'])[1 + i % 3],
       timestamp '2018-01-01' + i % 2190 * interval '1 day', timestamp '2018-01-01' + i % 2190 * interval '1 day' from generate_series(1, ${messages}) i`,
    ...['res_country', 'account_account', 'account_journal', 'res_partner', 'account_move', 'account_move_line', 'mail_message'].map((table) => `alter table ${table} add primary key (id)`),
    `alter table res_partner add foreign key (country_id) references res_country, add foreign key (parent_id) references res_partner`,
    `alter table account_move add foreign key (partner_id) references res_partner, add foreign key (journal_id) references account_journal`,
    `alter table account_move_line add foreign key (move_id) references account_move on delete cascade, add foreign key (partner_id) references res_partner, add foreign key (account_id) references account_account`,
    `alter table mail_message add foreign key (author_id) references res_partner`,
    `create index on res_partner (name)`,
    `create index on res_partner (email)`,
    `create index on res_partner (parent_id)`,
    `create index on account_move (partner_id)`,
    `create index on account_move (date, name)`,
    `create index on account_move (state, move_type)`,
    `create index on account_move_line (move_id)`,
    `create index on account_move_line (partner_id)`,
    `create index on account_move_line (account_id, date)`,
    `create index on mail_message (model, res_id)`,
    `create index on mail_message (author_id)`,
    `analyze`,
  ];
}

/** Creates `database` on the cluster and fills it; says its size in bytes. */
export async function generateErpDatabase(adminUrl: string, databaseUrl: string, database: string, scale: number): Promise<number> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${pg.escapeIdentifier(database)}`);
  } finally {
    await admin.end();
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`set maintenance_work_mem = '256MB'; set synchronous_commit = off`);
    for (const statement of erpDatabaseSql(scale)) await client.query(statement);
    const { rows } = await client.query<{ bytes: string }>('select pg_database_size(current_database())::text as bytes');
    return Number(rows[0]!.bytes);
  } finally {
    await client.end();
  }
}

/** `pg_dump -Fc` of the database into `file`, as the customer hands it over; says its size. */
export async function dumpDatabase(databaseUrl: string, file: string): Promise<number> {
  await runTool('pg_dump', ['--format=custom', '--file', file, '--dbname', databaseUrl]);
  return (await stat(file)).size;
}

/** Runs a pg tool; rejects with its stderr when it exits non-zero. */
export function runTool(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}: ${stderr.trim().split('\n').slice(-5).join('\n')}`))));
  });
}
