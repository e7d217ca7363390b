/** A throw-away TLS certificate for a loopback https server (made with the openssl command). */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A self-signed P-256 certificate for 127.0.0.1, valid one day, written to `dir` (certFile: for NODE_EXTRA_CA_CERTS). */
export function selfSignedCertificate(dir: string): { key: string; cert: string; certFile: string } {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'].concat([
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ]),
      { stdio: 'pipe' },
    );
  } catch (error) {
    throw new Error(`this test needs the openssl command (apt-get install -y openssl): ${(error as Error).message}`);
  }
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}
