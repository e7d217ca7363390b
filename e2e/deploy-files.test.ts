/**
 * The deploy files, read statically (no container engine runs here): compose.yaml's two shapes
 * are exclusive (the scaled one never also starts the standalone provider, with its own SQLite
 * keys under the same issuer), and deploy/nginx.conf gives the provider the client's own address
 * and the original scheme, never a list the client could have started. And the repository's
 * configuration for following dependency advisories (.github/dependabot.yml, SECURITY.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, SettingsError } from '@signet/provider';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '..');

type Service = {
  profiles?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  image?: string;
};

const compose = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as { services: Record<string, Service> };
const servicesOf = (profile: string) =>
  Object.entries(compose.services)
    .filter(([, service]) => service.profiles?.includes(profile))
    .map(([name]) => name)
    .sort();

/** An nginx directive: its name, arguments, and the directives of its block, if it has one. */
type Directive = { name: string; args: string[]; block?: Directive[] };

/** A small reader of nginx's configuration syntax: comments dropped, `;` ends a directive, `{}` a block. */
function parseNginx(text: string): Directive[] {
  const tokens = text
    .replace(/#[^\n]*/g, '')
    .split(/("[^"]*"|[{};]|\s+)/)
    .map((token) => token.trim())
    .filter(Boolean);
  let i = 0;
  const block = (): Directive[] => {
    const out: Directive[] = [];
    let words: string[] = [];
    while (i < tokens.length) {
      const token = tokens[i++] as string;
      if (token === ';') {
        out.push({ name: words[0] as string, args: words.slice(1) });
        words = [];
      } else if (token === '{') {
        out.push({ name: words[0] as string, args: words.slice(1), block: block() });
        words = [];
      } else if (token === '}') {
        return out;
      } else {
        words.push(token.replace(/^"|"$/g, ''));
      }
    }
    return out;
  };
  return block();
}

const nginx = parseNginx(readFileSync(join(ROOT, 'deploy', 'nginx.conf'), 'utf8'));
const all = (directives: Directive[], name: string): Directive[] =>
  directives.flatMap((d) => [...(d.name === name ? [d] : []), ...all(d.block ?? [], name)]);
const headers = (directives: Directive[]) =>
  new Map(all(directives, 'proxy_set_header').map((d) => [(d.args[0] as string).toLowerCase(), d.args.slice(1).join(' ')]));

describe('compose.yaml: two exclusive shapes', () => {
  it('every service belongs to exactly one profile, so `--profile scaled` never starts the standalone provider', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.profiles, `${name} has no profile: it would start with every shape`).toBeDefined();
      expect(service.profiles?.length, name).toBe(1);
    }
    expect(servicesOf('standalone')).toEqual(['signet']);
    expect(servicesOf('scaled')).toEqual(['proxy', 'redis', 'replica']);
  });

  it('standalone: SQLite on a volume, published directly, trusting no proxy', () => {
    const signet = compose.services.signet as Service;
    expect(signet.environment?.STORAGE_URL).toMatch(/^sqlite:\/data\//);
    expect(signet.environment?.TRUST_PROXY ?? 'false').toBe('false');
    expect(signet.ports).toEqual(['3000:3000']);
  });

  it('scaled: replicas share Redis and trust one proxy, and only nginx is published', () => {
    const { replica, redis, proxy } = compose.services as Record<string, Service>;
    expect(replica?.environment).toMatchObject({ STORAGE_URL: 'redis://redis:6379', TRUST_PROXY: 'true' });
    // A replica reachable beside nginx would take forged X-Forwarded-For from anyone.
    expect(replica?.ports).toBeUndefined();
    expect(redis?.ports).toBeUndefined();
    expect(proxy?.ports).toContain('443:443');
    expect(proxy?.volumes).toContain('./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro');
    expect(proxy?.volumes).toContain('./deploy/tls:/etc/nginx/tls:ro');
  });
});

describe('deploy/nginx.conf: the proxy chain', () => {
  const servers = all(nginx, 'server').filter((server) => server.block !== undefined);
  const proxying = servers.filter((server) => all(server.block ?? [], 'proxy_pass').length > 0);

  it('proxies to the scaled replicas, and plain http only redirects to https', () => {
    expect(all(nginx, 'upstream')[0]?.block?.find((d) => d.name === 'server')?.args[0]).toBe('replica:3000');
    expect(proxying.length).toBeGreaterThan(0);
    for (const server of servers.filter((s) => !proxying.includes(s))) {
      expect(all(server.block ?? [], 'return')[0]?.args).toEqual(['301', 'https://$host$request_uri']);
    }
  });

  it('X-Forwarded-For is one address nginx vouches for, never appended to what the client sent', () => {
    for (const server of proxying) {
      const forwarded = headers(server.block ?? []);
      expect(forwarded.get('x-forwarded-for')).toBe('$remote_addr');
    }
    const text = readFileSync(join(ROOT, 'deploy', 'nginx.conf'), 'utf8').replace(/#[^\n]*/g, '');
    expect(text).not.toContain('$proxy_add_x_forwarded_for');
    expect(text).not.toContain('$http_x_forwarded_for');
  });

  it('the scheme forwarded is the one the client used: https where nginx ends TLS, the terminator’s own only behind real_ip', () => {
    for (const server of proxying) {
      const directives = server.block ?? [];
      const endsTls = all(directives, 'listen').some((listen) => listen.args.includes('ssl'));
      const behindTerminator = all(directives, 'real_ip_header').length > 0 || all(nginx, 'real_ip_header').length > 0;
      expect(endsTls || behindTerminator, 'a proxying server either ends TLS or trusts a terminator in front').toBe(true);
      if (endsTls) {
        expect(headers(directives).get('x-forwarded-proto')).toBe('https');
        expect(all(directives, 'ssl_certificate')[0]?.args[0]).toBe('/etc/nginx/tls/fullchain.pem');
      } else {
        // Behind a terminator: its address is the only one trusted for the client's address and scheme.
        const trusted = all(nginx, 'set_real_ip_from');
        expect(trusted.length).toBeGreaterThan(0);
        for (const from of trusted) expect(from.args[0]).not.toMatch(/^0\.0\.0\.0\/0$|^::\/0$/);
      }
    }
  });

  it('bounds request bodies and hides its version', () => {
    for (const server of proxying) {
      expect(all(server.block ?? [], 'client_max_body_size')[0]?.args).toEqual(['64k']);
    }
    for (const server of servers) expect(all(server.block ?? [], 'server_tokens')[0]?.args).toEqual(['off']);
  });
});

describe('following dependencies and advisories', () => {
  const dependabot = parse(readFileSync(join(ROOT, '.github', 'dependabot.yml'), 'utf8')) as {
    version: number;
    updates: { 'package-ecosystem': string; directory: string; schedule: { interval: string } }[];
  };

  it('Dependabot watches the npm lock file, the Dockerfile and compose.yaml', () => {
    expect(dependabot.version).toBe(2);
    const watched = dependabot.updates.map((u) => `${u['package-ecosystem']} ${u.directory}`).sort();
    expect(watched).toEqual(['docker /', 'docker-compose /', 'npm /']);
    for (const update of dependabot.updates) expect(update.schedule.interval).toMatch(/^(daily|weekly)$/);
    // What each entry points at exists.
    for (const file of ['package-lock.json', 'Dockerfile', 'compose.yaml'])
      expect(readFileSync(join(ROOT, file), 'utf8').length).toBeGreaterThan(0);
  });

  it('SECURITY.md says how advisories are followed and how fast a fix ships', () => {
    const policy = readFileSync(join(ROOT, 'SECURITY.md'), 'utf8');
    expect(policy).toContain('## Dependencies and advisories');
    expect(policy).toContain('.github/dependabot.yml');
    expect(policy).toMatch(/critical or high, a patch release within 72 hours/);
  });
});

describe('deploy/kubernetes: what Pod Security "restricted" and TRUST_PROXY ask of it', () => {
  const manifest = (name: string) => parse(readFileSync(join(ROOT, 'deploy', 'kubernetes', name), 'utf8'));
  type Pod = {
    automountServiceAccountToken?: boolean;
    securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type?: string } };
    containers: {
      securityContext?: {
        allowPrivilegeEscalation?: boolean;
        runAsNonRoot?: boolean;
        capabilities?: { drop?: string[]; add?: string[] };
        seccompProfile?: { type?: string };
      };
    }[];
    volumes?: Record<string, unknown>[];
  };
  const pod = (manifest('deployment.yaml') as { spec: { template: { spec: Pod } } }).spec.template.spec;

  it('the pod meets the restricted profile: non-root, no escalation, every capability dropped, RuntimeDefault seccomp, no host volumes', () => {
    expect(pod.securityContext?.runAsNonRoot).toBe(true);
    expect(pod.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
    for (const container of pod.containers) {
      expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
      expect(container.securityContext?.capabilities?.drop).toEqual(['ALL']);
      expect(container.securityContext?.capabilities?.add).toBeUndefined();
      expect(container.securityContext?.seccompProfile?.type ?? pod.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
    }
    for (const volume of pod.volumes ?? []) expect(Object.keys(volume).sort()).toEqual(['emptyDir', 'name']);
  });

  it('no service-account token is mounted (the provider calls no Kubernetes API)', () => {
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  it('with TRUST_PROXY=true, a NetworkPolicy lets only the ingress controller (and monitoring) reach the pods', () => {
    const settings = (manifest('secret.yaml') as { stringData: Record<string, string> }).stringData;
    expect(settings.TRUST_PROXY).toBe('true');
    const policy = manifest('networkpolicy.yaml') as {
      kind: string;
      spec: {
        podSelector: { matchLabels: Record<string, string> };
        policyTypes: string[];
        ingress: { from: { namespaceSelector?: unknown; podSelector?: unknown; ipBlock?: unknown }[] }[];
      };
    };
    expect(policy.kind).toBe('NetworkPolicy');
    expect(policy.spec.podSelector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'signet' });
    expect(policy.spec.policyTypes).toContain('Ingress');
    for (const rule of policy.spec.ingress) {
      // Every rule names who may connect: an empty `from` would admit every pod.
      expect(rule.from.length).toBeGreaterThan(0);
      for (const peer of rule.from) expect(peer.namespaceSelector ?? peer.podSelector).toBeDefined();
    }
  });

  it('the Secret as shipped does not start: its METRICS_TOKEN placeholder is refused, naming it; a real token starts', () => {
    const settings = (manifest('secret.yaml') as { stringData: Record<string, string> }).stringData;
    const env = { ...settings, STORAGE_URL: 'memory:' };
    expect(() => loadConfig(env)).toThrow(SettingsError);
    expect(() => loadConfig(env)).toThrow(/^METRICS_TOKEN: is still the example placeholder/);
    expect(loadConfig({ ...env, METRICS_TOKEN: 'k9V2x7Qp0ZrT4mB8sL1wYc3N' }).metricsToken).toBe('k9V2x7Qp0ZrT4mB8sL1wYc3N');
  });

  it.each([
    'change-me-to-16-or-more-characters',
    'replace-with-a-long-random-token',
    '<your-metrics-token-here>',
    'xxxxxxxxxxxxxxxxxxxx',
  ])('refuses the placeholder %s for every secret setting', (placeholder) => {
    expect(() => loadConfig({ METRICS_TOKEN: placeholder })).toThrow(/^METRICS_TOKEN: /);
    expect(() => loadConfig({ REGISTRATION_TOKEN: placeholder })).toThrow(/^REGISTRATION_TOKEN: /);
    const padded = placeholder.padEnd(32, placeholder.at(-1));
    expect(() => loadConfig({ COOKIE_KEYS: `k9V2x7Qp0ZrT4mB8sL1wYc3N-cookie-key-1,${padded}` })).toThrow(
      /^COOKIE_KEYS: holds an example placeholder/,
    );
  });
});
