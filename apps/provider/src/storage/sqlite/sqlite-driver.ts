import { createRequire } from 'node:module';

type DatabaseConstructor = typeof import('better-sqlite3');

/**
 * better-sqlite3 13 is a Node-API addon with prebuilt binaries in the package: no compiler,
 * and none of the 12.x aborts on Node 24 (its ObjectWrap destructors assert when a statement
 * is garbage-collected outside a V8 context, which Node 24.19+ checks). 13 needs Node 22, so
 * on Node 20 the 12.x line is loaded from the optional package alias `better-sqlite3-node20`
 * (built from source at install). The API the store uses is the same in both.
 */
export const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

export function loadDatabase(major = NODE_MAJOR): DatabaseConstructor {
  const require = createRequire(import.meta.url);
  if (major >= 22) return require('better-sqlite3') as DatabaseConstructor;
  try {
    return require('better-sqlite3-node20') as DatabaseConstructor;
  } catch (error) {
    throw new Error(
      `SQLite storage on Node ${process.versions.node} needs better-sqlite3 12, installed as the optional package better-sqlite3-node20 and built from source: install a C++ toolchain (build-essential, python3) and run npm rebuild better-sqlite3-node20, or run on Node 22 or later (${(error as Error).message.split('\n')[0]})`,
    );
  }
}
