-- What the real base module's data/neutralize.sql (odoo/addons/base/data/neutralize.sql, 16.0-19.0)
-- does, limited to the tables the stand-in keeps (moduleRegistry.ts): written for the stand-in.

-- outgoing mail servers off
UPDATE ir_mail_server SET active = false;

-- a dead placeholder server, so the ERP never falls back to the SMTP server of its configuration (17.0+)
INSERT INTO ir_mail_server (name, smtp_host, smtp_port, smtp_encryption, smtp_authentication, active)
VALUES ('neutralization - disable emails', 'invalid', 1025, 'none', 'login', true);

-- scheduled actions off (the stand-in has no ir_model_data, so no autovacuum job to keep)
UPDATE ir_cron SET active = false;

-- the flag the web client and modules read
INSERT INTO ir_config_parameter (key, value)
VALUES ('database.is_neutralized', 'true')
    ON CONFLICT (key) DO UPDATE SET value = 'true';
