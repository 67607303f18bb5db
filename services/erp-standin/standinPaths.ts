import { fileURLToPath } from 'node:url';

/**
 * Where the stand-in keeps its modules, laid out like an Odoo source checkout: `odoo/addons` holds
 * `base` (always on the path), `addons` every other standard module (on the path only when named,
 * on 16.0 and 17.0).
 */
export const STANDIN_STANDARD_ADDONS = fileURLToPath(new URL('./addons', import.meta.url));
export const STANDIN_BASE_ADDONS = fileURLToPath(new URL('./odoo/addons', import.meta.url));
