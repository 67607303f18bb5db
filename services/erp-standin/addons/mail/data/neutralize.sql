-- As the real mail module's data/neutralize.sql (addons/mail/data/neutralize.sql): templates
-- tied to one mail server would bypass the placeholder server.
UPDATE mail_template SET mail_server_id = NULL;
