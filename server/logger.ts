import pino, { type Logger } from 'pino';

/** Paths that may hold secrets: never logged, wherever they appear. */
export const REDACTED_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
  '*.password',
  '*.csrf_token',
  '*.token',
  '*.code',
  '*.session_token',
  '*.tokenized',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: 'accounts' },
    },
    destination,
  );
}
