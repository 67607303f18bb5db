-- As the real web module's data/neutralize.sql (addons/web/data/neutralize.sql): the
-- "neutralized database" banner view, inactive until a database is neutralized.
UPDATE ir_ui_view SET active = true WHERE key = 'web.neutralize_banner';
