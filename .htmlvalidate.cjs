/**
 * html-validate's configuration for Forja's pages as served (test/web/accessibility.e2e.spec.ts
 * checks every page of test/web/a11yPages.ts with it). The `recommended` preset; a rule changed
 * here says why.
 */
module.exports = {
  root: true,
  extends: ['html-validate:recommended'],
  rules: {
    // The pages write `<!doctype html>`; HTML takes it in any case and the preset's choice of
    // upper case is style only. One case everywhere is what matters, so the rule keeps checking that.
    'doctype-style': ['error', { style: 'lowercase' }],
  },
};
