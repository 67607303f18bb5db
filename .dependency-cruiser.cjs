/**
 * The architecture's import rules (docs/ARCHITECTURE.md §2, STYLE.md rule 6), checked by
 * `npm run check`.
 */
const processes = ['services/control-plane', 'services/executor', 'services/padron', 'projections', 'web'];

module.exports = {
  forbidden: [
    {
      name: 'shared-imports-only-schemas',
      comment: 'services/shared is infrastructure: it imports nothing of ours but schemas/.',
      severity: 'error',
      from: { path: '^services/shared/' },
      to: { path: '^(services/(?!shared/)|projections/|web/|scripts/|test/)' },
    },
    ...processes.map((proc) => ({
      name: `no-cross-process-${proc.replace('/', '-')}`,
      comment:
        'A process never imports another process; they talk through events, the bus and HTTP. Read-model query functions in projections/ are the one shared read path.',
      severity: 'error',
      from: { path: `^${proc}/` },
      to: { path: `^(${processes.filter((other) => other !== proc && other !== 'projections').join('|')})/` },
    })),
    {
      name: 'web-never-touches-the-event-store',
      comment: 'web reads projections query functions and sends commands over HTTP; it never reads or writes events.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^services/shared/eventStore/' },
    },
    {
      name: 'domain-is-pure',
      comment: 'Deciders and domain files do no I/O.',
      severity: 'error',
      from: { path: '\\.(decider|domain)\\.ts$|^services/[^/]+/domain/' },
      to: { path: '^(node:)?(fs|net|http|https|child_process|pg|nats|kysely|@eventstore)|^services/shared/(db|eventStore|bus|local|platform)' },
    },
    {
      name: 'production-code-never-imports-tests',
      severity: 'error',
      from: { path: '^(services|projections|web|scripts|schemas)/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
