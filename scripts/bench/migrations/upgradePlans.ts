import { planStep, type PlannedStep } from '#shared/workflow/plan.ts';

/**
 * An upgrade as OpenUpgrade does one, on the generated ERP-like tables (erpDatabase.ts), as `sql`
 * steps each followed by its checkpoint: legacy columns kept (`openupgrade_legacy_*`), a column
 * computed over the largest table, then an index over it. In the broken plan the last step fails
 * after its work (the index is built, then the step raises): a migration dying at ~80 %. The
 * fixed plan is the same with that step mended, as the recipe's author would edit it.
 */
const UPGRADE: ReadonlyArray<[id: string, sql: string]> = [
  ['upgrade_partners', 'alter table res_partner add column openupgrade_legacy_email varchar; update res_partner set openupgrade_legacy_email = email'],
  ['upgrade_moves', 'alter table account_move add column openupgrade_legacy_state varchar; update account_move set openupgrade_legacy_state = state'],
  ['upgrade_lines', 'alter table account_move_line add column forja_bench_net numeric(16,2); update account_move_line set forja_bench_net = debit - credit'],
];
const LAST_STEP = 'upgrade_indexes';
const INDEX = 'create index account_move_line_account_net on account_move_line (account_id, forja_bench_net)';
const FAILURE = "do $$ begin raise exception 'bench: this upgrade step fails on purpose, after its work'; end $$";

function upgradePlan(last: string): PlannedStep[] {
  return [
    planStep('fetch'),
    planStep('restore'),
    ...UPGRADE.map(([id, sql]) => planStep('sql', { id, params: { sql } })),
    planStep('sql', { id: LAST_STEP, params: { sql: last } }),
  ];
}

export const brokenUpgradePlan = (): PlannedStep[] => upgradePlan(`${INDEX}; ${FAILURE}`);
export const fixedUpgradePlan = (): PlannedStep[] => upgradePlan(INDEX);
export const FAILING_STEP = LAST_STEP;
