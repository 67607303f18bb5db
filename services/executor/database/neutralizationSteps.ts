/** The statements of neutralization, as data: what each does, what it needs, and why. */

export interface Column {
  notNull: boolean;
  hasDefault: boolean;
}
/** table → column → facts, for the tables neutralization may touch that exist in this database. */
export type Schema = Map<string, Map<string, Column>>;

export interface Statement {
  sql: string;
  params?: unknown[];
}

/** Where a neutralized copy's outgoing mail goes: Forja's mail catcher, so a tester sees what the ERP would have sent. */
export interface MailCatcherAddress {
  host: string;
  port: number;
  /** The instance's mailbox login: the catcher keeps the copy's mail for that instance alone (mailboxLogin.ts). */
  login?: { user: string; pass: string };
}

export interface Step {
  what: string;
  /** `table.column`s the statements use; the step is skipped when one is missing (module not installed, older ERP). */
  needs: string[];
  statements(schema: Schema, mailCatcher?: MailCatcherAddress): Statement[];
  /** Forja's own: run after the ERP's `neutralize` too, which does the rest (and more) itself. */
  forjaOwn?: boolean;
}

const PLACEHOLDER_MAIL_SERVER = 'neutralization - disable emails';
const PLACEHOLDER_WEBHOOK = 'neutralization - disable webhook';

/**
 * What the ERP's own neutralization (`<module>/data/neutralize.sql`) does to a copy that is
 * not production, statement by statement, each only where its table and columns exist.
 *
 * Kept on purpose: `database.enterprise_code` (the ERP's neutralization keeps it too; the
 * licence covers test copies, the copy cannot report itself to the publisher because scheduled
 * actions are off, and removing it would put an unregistered-database banner and expiry on
 * enterprise copies) and `database.uuid` (changing it is what the ERP's "duplicate" does, not its
 * neutralization, and upgrade services key on it).
 */
export const STEPS: Step[] = [
  {
    // Scheduled actions mail customers, send invoices to the tax authority, sync bank feeds and
    // call partners' APIs. The autovacuum job only cleans the copy's own tables; the ERP keeps it.
    what: 'scheduled actions (ir_cron) deactivated, except base.autovacuum_job',
    needs: ['ir_cron.active'],
    statements: (schema) => [
      {
        sql:
          'update ir_cron set active = false where active' +
          (has(schema, 'ir_model_data.res_id', 'ir_model_data.model', 'ir_model_data.module', 'ir_model_data.name')
            ? ` and id not in (select res_id from ir_model_data where model = 'ir.cron' and module = 'base' and name = 'autovacuum_job' and res_id is not null)`
            : ''),
      },
    ],
  },
  {
    // Outgoing mail would reach the production's customers.
    what: 'outgoing mail servers (ir_mail_server) deactivated',
    needs: ['ir_mail_server.active', 'ir_mail_server.name'],
    statements: () => [{ sql: 'update ir_mail_server set active = false where active and name <> $1', params: [PLACEHOLDER_MAIL_SERVER] }],
  },
  {
    // With no active server the ERP falls back to the SMTP server of its configuration
    // (localhost:25 by default), and a relay on the host would deliver; the placeholder points
    // at Forja's mail catcher, which keeps every message for testers at /mails, or without a
    // catcher at the unresolvable host `invalid`, so mail stays queued in the copy.
    what: `placeholder outgoing mail server '${PLACEHOLDER_MAIL_SERVER}' (the mail catcher, or host invalid) added`,
    needs: ['ir_mail_server.name', 'ir_mail_server.smtp_host', 'ir_mail_server.smtp_port', 'ir_mail_server.smtp_encryption', 'ir_mail_server.active'],
    statements: placeholderMailServer,
    // The ERP's own placeholder (base/data/neutralize.sql, 17.0+: the same name, host `invalid`) is taken over, 16.0's missing one added.
    forjaOwn: true,
  },
  {
    // A template tied to one server would bypass the placeholder.
    what: 'mail templates (mail_template) detached from their mail server',
    needs: ['mail_template.mail_server_id'],
    statements: () => [{ sql: 'update mail_template set mail_server_id = null where mail_server_id is not null' }],
  },
  {
    // Incoming servers would take messages out of production mailboxes (POP deletes them there).
    what: 'incoming mail servers (fetchmail_server) deactivated',
    needs: ['fetchmail_server.active'],
    statements: () => [{ sql: 'update fetchmail_server set active = false where active' }],
  },
  {
    // Webhook server actions post records to outside systems.
    what: 'webhook server actions (ir_act_server) pointed nowhere',
    needs: ['ir_act_server.state', 'ir_act_server.webhook_url'],
    statements: () => [{ sql: `update ir_act_server set webhook_url = $1 where state = 'webhook' and webhook_url is distinct from $1`, params: [PLACEHOLDER_WEBHOOK] }],
  },
  ...['payment_provider', 'payment_acquirer'].flatMap((table): Step[] => [
    {
      // Live payment providers would charge real cards; test mode stays usable.
      what: `live payment providers (${table}) disabled`,
      needs: [`${table}.state`],
      statements: () => [{ sql: `update ${table} set state = 'disabled' where state not in ('test', 'disabled')` }],
    },
    {
      what: `payment providers (${table}) taken out of live mode`,
      needs: [`${table}.is_live`],
      statements: () => [{ sql: `update ${table} set is_live = false where is_live` }],
    },
  ]),
  {
    // Carriers in production mode book real shipments.
    what: 'delivery carriers (delivery_carrier) switched to their test environment',
    needs: ['delivery_carrier.prod_environment'],
    statements: () => [{ sql: 'update delivery_carrier set prod_environment = false where prod_environment' }],
  },
  {
    // The ERP shows a "neutralized database" banner and its modules check this flag.
    what: 'ir_config_parameter database.is_neutralized = true',
    needs: ['ir_config_parameter.key', 'ir_config_parameter.value'],
    statements: (schema) => {
      const typed = has(schema, 'ir_config_parameter.type');
      return [
        { sql: `update ir_config_parameter set value = 'true'${typed ? `, type = 'str'` : ''} where key = 'database.is_neutralized' and value is distinct from 'true'` },
        {
          sql: `insert into ir_config_parameter (key, value${typed ? ', type' : ''}) select 'database.is_neutralized', 'true'${typed ? `, 'str'` : ''}
                where not exists (select 1 from ir_config_parameter where key = 'database.is_neutralized')`,
        },
      ];
    },
  },
];

function placeholderMailServer(schema: Schema, mailCatcher?: MailCatcherAddress): Statement[] {
  const target = mailCatcher ?? { host: 'invalid', port: 1025 };
  const values: Record<string, unknown> = { name: PLACEHOLDER_MAIL_SERVER, smtp_host: target.host, smtp_port: target.port, smtp_encryption: 'none', active: true };
  if (has(schema, 'ir_mail_server.smtp_authentication')) values['smtp_authentication'] = 'login';
  // The ERP logs in when smtp_user is set (Odoo's ir_mail_server.connect): the catcher then knows whose mail it is.
  const login = mailCatcher?.login && has(schema, 'ir_mail_server.smtp_user', 'ir_mail_server.smtp_pass') ? mailCatcher.login : undefined;
  if (login) Object.assign(values, { smtp_user: login.user, smtp_pass: login.pass });
  // A layout with another required column is one this code does not know: better no placeholder than a failed step.
  const required = [...(schema.get('ir_mail_server') ?? new Map<string, Column>())].filter(([, column]) => column.notNull && !column.hasDefault).map(([name]) => name);
  if (required.some((name) => !(name in values))) return [];
  const names = Object.keys(values);
  return [
    {
      sql: `insert into ir_mail_server (${names.join(', ')}) select ${names.map((_, i) => `$${i + 1}`).join(', ')}
            where not exists (select 1 from ir_mail_server where name = $${names.length + 1})`,
      params: [...Object.values(values), PLACEHOLDER_MAIL_SERVER],
    },
    // A copy neutralized before (or while the catcher was off, or before mailboxes) gets the current target and login.
    login
      ? {
          sql: `update ir_mail_server set smtp_host = $1, smtp_port = $2, smtp_user = $3, smtp_pass = $4 where name = $5
                and (smtp_host, smtp_port, smtp_user, smtp_pass) is distinct from ($1, $2, $3, $4)`,
          params: [target.host, target.port, login.user, login.pass, PLACEHOLDER_MAIL_SERVER],
        }
      : {
          sql: 'update ir_mail_server set smtp_host = $1, smtp_port = $2 where name = $3 and (smtp_host, smtp_port) is distinct from ($1, $2)',
          params: [target.host, target.port, PLACEHOLDER_MAIL_SERVER],
        },
  ];
}

export function has(schema: Schema, ...needs: string[]): boolean {
  return needs.every((need) => {
    const [table = '', column = ''] = need.split('.');
    return schema.get(table)?.has(column) ?? false;
  });
}

