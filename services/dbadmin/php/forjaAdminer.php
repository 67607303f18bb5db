<?php
/**
 * Forja's Adminer: one instance's database on the ERP database server, and nothing else.
 *
 * web (web/tools/dbAdminTool.ts) answers /dbadmin/<slug>/ for developers and admins only; it looks
 * the instance up and sends its role's name and derived password in the X-Forja-Dbadmin-* headers
 * (after dropping any the browser sent), so nobody types a password and none reaches the browser.
 * The role is the instance's own (NOSUPERUSER, owner of its database only).
 */

/** Adminer's driver keys besides pgsql: a URL naming one asks for another kind of server. */
const FORJA_OTHER_DRIVERS = ['server', 'sqlite', 'sqlite2', 'oracle', 'mssql', 'mongo', 'elastic', 'firebird', 'simpledb', 'clickhouse'];

/** The instance web resolved, from its headers (removed from $_SERVER: Adminer has no use for them). */
function forja_instance(): ?array {
	$instance = [];
	foreach (['user', 'password', 'database'] as $field) {
		$key = 'HTTP_X_FORJA_DBADMIN_' . strtoupper($field);
		$instance[$field] = (string) ($_SERVER[$key] ?? '');
		unset($_SERVER[$key]);
	}
	return in_array('', $instance, true) ? null : $instance;
}

/**
 * Why this request must not reach Adminer, or null. The server is always the ERP database server
 * (credentials() below), so a URL or login form naming another server, another driver, another
 * user or another database is refused rather than quietly redirected.
 */
function forja_refusal(array $instance, array $get, array $post): ?string {
	foreach (FORJA_OTHER_DRIVERS as $driver) {
		if (array_key_exists($driver, $get)) return 'Only PostgreSQL: the database admin reaches the instances\' database server and nothing else.';
	}
	if (isset($get['pgsql']) && $get['pgsql'] !== '') return 'Only the instances\' database server: the database admin does not connect to another server.';
	if (isset($post['auth'])) return 'There is nothing to sign in to: Forja signs you in to the instance\'s database.';
	if (isset($get['username']) && $get['username'] !== $instance['user']) return 'Only the instance\'s own database role.';
	if (isset($get['db']) && $get['db'] !== '' && $get['db'] !== $instance['database']) return 'Only this instance\'s database: open another instance\'s from its page in Forja.';
	return null;
}

/** Adminer reads the driver, user and database from the URL: they are always the instance's. */
function forja_pin(array $instance): void {
	$_GET['pgsql'] = '';
	$_GET['username'] = $instance['user'];
	if (!isset($_GET['db']) || $_GET['db'] === '') $_GET['db'] = $instance['database'];
}

/** A plain page of our own, for requests that never reach Adminer. */
function forja_page(int $status, string $title, string $message): void {
	http_response_code($status);
	header('Content-Type: text/html; charset=utf-8');
	header('Cache-Control: no-store');
	$h = fn (string $text) => htmlspecialchars($text, ENT_NOQUOTES, 'UTF-8');
	echo "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{$h($title)}</title></head>\n"
		. "<body style=\"font-family: sans-serif; max-width: 40em; margin: 3em auto\"><h1>{$h($title)}</h1><p>{$h($message)}</p><p><a href=\"/instances\">Instances</a></p></body></html>\n";
}

/** Called by Adminer once its classes exist: an Adminer that only knows the one instance. */
function forja_adminer(array $instance, string $server, string $adminerDir) {
	include_once "$adminerDir/plugins/plugin.php";
	include_once "$adminerDir/plugins/version-noverify.php";

	return new class ($instance, $server) extends AdminerPlugin {
		private $instance;
		private $server;

		function __construct(array $instance, string $server) {
			// No phoning home to adminer.org for new versions: Debian updates the package.
			parent::__construct([new AdminerVersionNoverify()]);
			$this->instance = $instance;
			$this->server = $server;
			// Adminer only connects once its session holds a password for this user; the real one
			// comes from credentials() at every request, so the session keeps an empty stand-in.
			$_SESSION['pwds']['pgsql'][''][$instance['user']] = '';
		}

		function name() {
			return 'Database admin';
		}

		function credentials() {
			return [$this->server, $this->instance['user'], $this->instance['password']];
		}

		function login($login, $password) {
			return $login === $this->instance['user'] ? true : 'Only the instance\'s own database role.';
		}

		function database() {
			return $this->instance['database'];
		}

		function databases($flush = true) {
			return [$this->instance['database']];
		}

		function serverName($server) {
			return 'instances\' database server';
		}

		// Nobody types a password, so there are no failed logins to count; Adminer's per-address
		// lock would otherwise lock every user out at once (they all come from web's 127.0.0.1).
		function bruteForceKey() {
			return bin2hex(random_bytes(8));
		}

		function loginForm() {
			echo '<p>Open the database admin from an instance\'s page in Forja: it signs you in to that instance\'s database.</p>';
		}
	};
}
