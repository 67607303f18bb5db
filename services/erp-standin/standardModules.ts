/**
 * The modules the stand-in plays as shipped with the ERP (its community edition's `addons`
 * folder), so `-i sale` works without an addons path, as it does on the real ERP. A name that is
 * neither here nor an addon on `--addons-path` is unknown: logged and ignored, never installed.
 */
export const STANDARD_MODULES: readonly string[] = [
  'account', 'account_check_printing', 'account_debit_note', 'account_edi', 'account_edi_ubl_cii', 'account_fleet',
  'account_payment', 'account_tax_python', 'analytic', 'auth_ldap', 'auth_oauth', 'auth_signup', 'auth_totp',
  'barcodes', 'base', 'base_automation', 'base_geolocalize', 'base_iban', 'base_import', 'base_import_module',
  'base_setup', 'base_sparse_field', 'base_vat', 'board', 'bus', 'calendar', 'contacts', 'crm', 'crm_iap_enrich',
  'delivery', 'digest', 'event', 'event_sale', 'fleet', 'gamification', 'google_account', 'google_calendar', 'hr',
  'hr_attendance', 'hr_contract', 'hr_expense', 'hr_fleet', 'hr_holidays', 'hr_org_chart', 'hr_presence',
  'hr_recruitment', 'hr_skills', 'hr_timesheet', 'hr_work_entry', 'iap', 'im_livechat', 'l10n_ar',
  'l10n_ar_website_sale', 'l10n_be', 'l10n_br', 'l10n_ca', 'l10n_ch', 'l10n_cl', 'l10n_co', 'l10n_de', 'l10n_es',
  'l10n_fr', 'l10n_in', 'l10n_it', 'l10n_latam_base', 'l10n_latam_check', 'l10n_latam_invoice_document', 'l10n_mx',
  'l10n_nl', 'l10n_pe', 'l10n_us', 'l10n_uy', 'link_tracker', 'loyalty', 'lunch', 'mail', 'mail_bot', 'maintenance',
  'mass_mailing', 'microsoft_calendar', 'mrp', 'mrp_account', 'mrp_product_expiry', 'mrp_subcontracting', 'payment',
  'payment_adyen', 'payment_demo', 'payment_paypal', 'payment_stripe', 'phone_validation', 'point_of_sale',
  'portal', 'pos_hr', 'pos_loyalty', 'pos_restaurant', 'pos_sale', 'product', 'product_expiry', 'project',
  'project_todo', 'purchase', 'purchase_mrp', 'purchase_requisition', 'purchase_stock', 'rating', 'repair',
  'resource', 'sale', 'sale_crm', 'sale_expense', 'sale_loyalty', 'sale_management', 'sale_margin', 'sale_mrp',
  'sale_project', 'sale_purchase', 'sale_stock', 'sale_timesheet', 'sales_team', 'sms', 'snailmail', 'spreadsheet',
  'spreadsheet_dashboard', 'stock', 'stock_account', 'stock_delivery', 'stock_dropshipping', 'stock_landed_costs',
  'stock_picking_batch', 'stock_sms', 'survey', 'uom', 'utm', 'web', 'web_editor', 'web_tour', 'web_unsplash',
  'website', 'website_blog', 'website_crm', 'website_event', 'website_forum', 'website_hr_recruitment',
  'website_livechat', 'website_mail', 'website_payment', 'website_sale', 'website_sale_stock', 'website_slides',
];

/** Manifest versions of the standard modules the real ERP ships with another than 1.0 (base is 1.3 in 16.0 and 17.0). */
const VERSIONS: Readonly<Record<string, string>> = { base: '1.3' };

export const standardModuleVersion = (name: string): string => VERSIONS[name] ?? '1.0';
