import { fileURLToPath } from 'node:url';

/**
 * The stand-in is laid out like an ERP source checkout (odoo/odoo): `odoo/addons` holds `base`,
 * which the real ERP always puts on its addons path (odoo/modules/module.py, `initialize_sys_path`),
 * and `addons` holds the other standard community modules (web, sale, stock…), which the
 * configuration's default addons path names (odoo/tools/config.py).
 */
export const STANDIN_STANDARD_ADDONS = fileURLToPath(new URL('./addons', import.meta.url));
export const STANDIN_BASE_ADDONS = fileURLToPath(new URL('./odoo/addons', import.meta.url));
/** The stand-in's imitation of an OpenUpgrade checkout's root: openupgrade_framework and openupgrade_scripts (openupgrade/README.md). */
export const STANDIN_OPENUPGRADE = fileURLToPath(new URL('./openupgrade', import.meta.url));
