import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadDatabase, NODE_MAJOR } from './sqlite-driver.ts';

const require = createRequire(import.meta.url);

describe('the SQLite driver', () => {
  it(`loads the better-sqlite3 line made for Node ${NODE_MAJOR} and it works`, () => {
    const Database = loadDatabase();
    const expected = NODE_MAJOR >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';
    expect(Database).toBe(require(expected));
    const version = require(`${expected}/package.json`).version as string;
    expect(version.split('.')[0]).toBe(NODE_MAJOR >= 22 ? '13' : '12');
    const db = new Database(':memory:');
    // Statements created and dropped in a loop: garbage collection of statements is what
    // aborted better-sqlite3 12 on Node 24.
    for (let i = 0; i < 2000; i++) db.prepare('SELECT ? AS x').get(i);
    expect(db.prepare('SELECT 41 + 1 AS x').get()).toEqual({ x: 42 });
    db.close();
  });
});
