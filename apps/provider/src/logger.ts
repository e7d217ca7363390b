import pino from 'pino';

export type Logger = pino.Logger;

/**
 * JSON logs (pino). Credentials never reach a log line: authorization headers, cookies,
 * client secrets, tokens and signatures are redacted wherever they appear.
 */
export function createLogger(level: pino.LevelWithSilent = 'info', destination?: pino.DestinationStream): Logger {
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
    destination,
  );
}
