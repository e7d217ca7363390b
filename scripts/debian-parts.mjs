/**
 * The Debian packages some recipe tests run (docs/recipes.md): stock relying parties that are
 * not npm packages. `scripts/prerequisites.mjs` installs what is missing before `npm test`
 * (root with apt), `.ci/run` installs them on a fresh machine, and each test checks again and
 * fails with the install command (never a skip).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** @type {{ name: string, why: string, packages: string[], commands?: string[], paths?: string[], ruby?: string[] }[]} */
export const DEBIAN_PARTS = [
  {
    name: 'oidc-agent',
    why: 'oidc-agent and oidc-gen for the oidc-agent recipe (e2e/recipes/oidc-agent.test.ts)',
    packages: ['oidc-agent-cli'],
    commands: ['oidc-agent', 'oidc-gen', 'oidc-token'],
  },
  {
    name: 'go-oidc',
    why: 'Go with go-oidc and x/oauth2 for the go-oidc recipe (e2e/recipes/go-oidc.test.ts)',
    packages: ['golang-go', 'golang-github-coreos-go-oidc-dev', 'golang-golang-x-oauth2-dev'],
    commands: ['go'],
    paths: ['/usr/share/gocode/src/github.com/coreos/go-oidc', '/usr/share/gocode/src/golang.org/x/oauth2'],
  },
  {
    name: 'omniauth',
    why: 'Ruby with omniauth_openid_connect, Rack and WEBrick for the OmniAuth recipe (e2e/recipes/omniauth.test.ts)',
    packages: ['ruby-omniauth-openid-connect', 'ruby-rack', 'ruby-webrick'],
    commands: ['ruby'],
    ruby: ['omniauth_openid_connect', 'rack', 'webrick'],
  },
];

const which = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).status === 0;

/** Whether a part is installed. */
export function hasPart(part) {
  if (!(part.commands ?? []).every(which)) return false;
  if (!(part.paths ?? []).every((path) => existsSync(path))) return false;
  if (part.ruby) {
    const script = part.ruby.map((lib) => `require ${JSON.stringify(lib)}`).join('; ');
    if (spawnSync('ruby', ['-e', script], { stdio: 'ignore' }).status !== 0) return false;
  }
  return true;
}

/** Throws, naming the install command, when the part called `name` is missing (tests call this first). */
export function requireDebianPart(name) {
  const part = DEBIAN_PARTS.find((p) => p.name === name);
  if (!part) throw new Error(`unknown Debian part ${name}`);
  if (!hasPart(part)) {
    throw new Error(
      `this test needs ${part.why}. Install it with:\n    sudo apt-get update && sudo apt-get install -y ${part.packages.join(' ')}\n(npm test installs it when run as root)`,
    );
  }
}
