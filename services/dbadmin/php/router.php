<?php
/**
 * PHP's built-in server routes every request here (services/dbadmin/dbAdminProcess.ts): web's
 * /dbadmin/<slug>/ goes to Adminer pinned to that instance (forjaAdminer.php), anything else gets
 * a page saying where to open it. Adminer keeps the path in its links, form actions, redirects and
 * cookie path, so they all stay under /dbadmin/<slug>/.
 */
require __DIR__ . '/forjaAdminer.php';

// Says which of web's tools answered (web's pages and the other tools do not send it).
header('X-Forja-Tool: dbadmin');

// Adminer prepends this header to its links: only web decides what the browser is sent to.
unset($_SERVER['HTTP_X_FORWARDED_PREFIX']);

$path = (string) parse_url($_SERVER['REQUEST_URI'] ?? '/', PHP_URL_PATH);
if (preg_match('~^/dbadmin/([a-z0-9-]{1,64})$~', $path, $match)) {
	// Adminer's links are relative to the instance's folder: /dbadmin/<slug> has to end in a slash.
	$query = (string) parse_url($_SERVER['REQUEST_URI'], PHP_URL_QUERY);
	header('Location: ' . $match[1] . '/' . ($query === '' ? '' : "?$query"), true, 301);
	return true;
}
if (!preg_match('~^/dbadmin/[a-z0-9-]{1,64}/$~', $path)) {
	$status = ($path === '/dbadmin/' || $path === '/dbadmin') ? 200 : 404;
	forja_page($status, 'Database admin', 'Open the database admin from an instance\'s page in Forja (Tools, "Database admin"): it opens that instance\'s database.');
	return true;
}
$forja_instance = forja_instance();
if ($forja_instance === null) {
	forja_page(403, 'Database admin', 'The database admin is reached through Forja only, from an instance\'s page.');
	return true;
}
$forja_refusal = forja_refusal($forja_instance, $_GET, $_POST);
if ($forja_refusal !== null) {
	forja_page(403, 'Refused', $forja_refusal);
	return true;
}
forja_pin($forja_instance);

function adminer_object() {
	global $forja_instance;
	return forja_adminer($forja_instance, (string) getenv('FORJA_DBADMIN_SERVER'), (string) getenv('FORJA_DBADMIN_ADMINER'));
}

include getenv('FORJA_DBADMIN_ADMINER') . '/adminer.php';
return true;
