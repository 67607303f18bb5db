/**
 * What the new-recipe form starts with: a complete one-hop recipe that passes lint, for the admin
 * to adapt (the shipped recipes are the fuller examples, linked from the form).
 */
export function recipeTemplate(flavor: 'community' | 'enterprise', origin: string, destination: string): string {
  const upgrade =
    flavor === 'enterprise'
      ? '  - { id: upgrade, kind: upgrade_service, timeout: 12h }\n'
      : [
          '  - id: upgrade',
          '    kind: erp',
          '    version: destination',
          '    timeout: 8h',
          '    retries: 1',
          '    args: ["--update=all", "--stop-after-init", "--load=base,web,openupgrade_framework", "--upgrade-path=${paths.upgrade}"]',
          '',
        ].join('\n');
  return `format: 1
name: "${flavor === 'enterprise' ? 'Enterprise' : 'Community'} ${origin} -> ${destination}"
flavor: ${flavor}
stem: "${origin}-${destination}"
route: { origin: "${origin}", destination: "${destination}" }   # quote versions: YAML reads 16.0 as a number
defaults: { timeout: 2h, retries: 0 }

# Inspections of the source before anything changes (check, modules, filestore, disk).
preflight:
  - { id: source_version, kind: check, sql: "select latest_version from ir_module_module where name = 'base'", expect: { matches: '^${origin.replace('.', '\\.')}\\.' } }
  - { id: space, kind: disk, free_factor: 3 }

steps:
  - { id: fetch, kind: fetch }
  - { id: restore, kind: restore }
  - { id: backup_origin, kind: backup }
${upgrade}  - id: verify
    kind: check
    sql: "select name, latest_version from ir_module_module where state = 'installed' and latest_version not like '\${hop.destination}.%'"
    expect: { rows: 0 }
  - { id: dump_result, kind: dump }
  - { id: report, kind: report }
`;
}
