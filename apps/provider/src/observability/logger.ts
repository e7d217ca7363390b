import { createRequire } from 'node:module';
import pino from 'pino';
import type { LogFormat } from '../config.ts';

export type Logger = pino.Logger;

/** pino-pretty as a synchronous stream in this process (no worker thread), loaded only when used. */
function prettyStream(): pino.DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (options: Record<string, unknown>) => pino.DestinationStream;
  return pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
}

/**
 * pino logs. Credentials never reach a log line: authorization headers, cookies, client
 * secrets, tokens and signatures are redacted wherever they appear.
 */
export function createLogger(
  level: pino.LevelWithSilent = 'info',
  destination?: pino.DestinationStream,
  format: LogFormat = 'json',
): Logger {
  return pino(
    {
      level,
      base: { service: 'signet-provider' },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          '*.client_secret',
          '*.registration_access_token',
          '*.access_token',
          '*.refresh_token',
          '*.id_token',
          '*.code',
          '*.signature',
          '*.jwk',
          '*.d',
        ],
        censor: '[redacted]',
      },
    },
    destination ?? (format === 'pretty' ? prettyStream() : undefined),
  );
}
