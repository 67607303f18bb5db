-- The stand-in's own upgrade scripts for 19.0: what OpenUpgrade's openupgrade_scripts are to the
-- real ERP. Records when base was migrated, as OpenUpgrade's logs would show it.
create table if not exists forja_standin_upgrades (version text not null, upgraded_at timestamptz not null default now());
insert into forja_standin_upgrades (version) values ('19.0');
