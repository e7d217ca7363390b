import { closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * The database holds the private signing key, cookie keys and the pairwise salt: only this
 * user may read it. A directory the provider creates is 0700 and a new database 0600 (SQLite
 * gives its -wal and -shm files the database's mode), whatever the umask. Existing files keep
 * their mode (an operator may have chosen it), but one that others can read is reported.
 */
export function prepareDatabaseFile(path: string, warn: (message: string) => void): void {
  const dir = dirname(resolve(path));
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  else if (statSync(dir).mode & 0o007) {
    warn(
      `the directory ${dir} of the SQLite database is accessible to other users (mode ${(statSync(dir).mode & 0o777).toString(8)}); chmod 700 it`,
    );
  }
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  else if (statSync(path).mode & 0o077) {
    warn(
      `the SQLite database ${path} is readable by other users (mode ${(statSync(path).mode & 0o777).toString(8)}); it holds private keys: chmod 600 it`,
    );
  }
}
