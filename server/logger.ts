import pino, { type Logger } from 'pino';

export const REDACTED = '[redacted]';

/**
 * Keys whose values are secrets wherever they appear in a log line, at any depth: cookies, bearer
 * and API keys, passwords, CSRF tokens, Kratos flow/session/logout tokens and one-time codes.
 */
const SECRET_KEY =
  /^(cookie|set-cookie|authorization|proxy-authorization|x-csrf-token|x-session-token|_csrf|csrf|csrf_?token|password|new_?password|passwd|secret|.*_secret|api_?key|.*api_?key|token|.*_token|tokenized|recovery_link|credential|ory_kratos_session|.*session_?secret)$/i;

// Values that are secrets whatever their key: a Cookie/Set-Cookie header line, a bearer token.
const SECRET_VALUE = /\b(ory_kratos_session|csrf_token_[\w-]*|__Host-[\w.-]+|accounts\.sid)=|^\s*Bearer\s+\S/i;

// `code` is both an error code worth keeping (`ECONNREFUSED`, `csrf_invalid`) and a one-time secret
// (a six-digit recovery code, an OAuth2 authorization code): only the latter are hidden.
const isSecretCode = (value: unknown) => typeof value === 'string' && (/^\d+$/.test(value) || (value.length >= 16 && !value.includes('_')));

/**
 * A cheap test on the raw JSON line: every key SECRET_KEY matches, every value SECRET_VALUE matches and
 * the key `code` contain one of these words, so a line without any of them has nothing to redact and
 * is written as it is. Most lines (a request completed, a service started) never pay for the parse,
 * the walk and the re-serialisation. JSON.stringify escapes none of these characters, so a secret
 * cannot hide from this test behind an escape sequence.
 */
const MIGHT_HOLD_SECRET = /cookie|authorization|csrf|passw|secret|api_?key|token|credential|recovery_link|session|"code"|bearer|__host-|accounts\.sid/i;

const isSecret = (key: string, value: unknown) => SECRET_KEY.test(key) || (key === 'code' && isSecretCode(value));

const MAX_DEPTH = 8;

/**
 * A copy of `value` with every secret replaced by [redacted]. Walks plain objects, arrays, Maps and
 * the enumerable properties of errors (HTTP client errors carry request headers). Cycles and very
 * deep structures are cut rather than followed.
 */
export function redactDeep(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? REDACTED : value;
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[truncated]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, depth + 1, seen));
  if (value instanceof Map) return redactDeep(Object.fromEntries(value), depth, seen);
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return `[${value.constructor.name}]`;
  const out: Record<string, unknown> = {};
  if (value instanceof Error) {
    out.type = value.constructor.name;
    out.message = redactDeep(value.message, depth + 1, seen);
    out.stack = redactDeep(value.stack, depth + 1, seen);
  }
  for (const [key, item] of Object.entries(value)) {
    // Sockets and raw HTTP messages (axios puts them on errors) are noise and may hold headers.
    if (key === 'request' || key === 'socket' || key === '_httpMessage') continue;
    out[key] = isSecret(key, item) ? REDACTED : redactDeep(item, depth + 1, seen);
  }
  return out;
}

type RequestLike = { id?: unknown; method?: string; url?: string; originalUrl?: string };

/**
 * What a request, response or error looks like in the logs. Requests keep only the path: query
 * strings carry flow ids, codes and tokens; headers carry cookies. pino-http must use these too.
 */
export const logSerializers = {
  req: (req: RequestLike) => ({
    id: req.id,
    method: req.method,
    path: String(req.originalUrl ?? req.url ?? '').split('?')[0],
  }),
  res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
  err: (error: unknown) => redactDeep(error),
};

/**
 * The last step before a line is written: parse it, redact it, write it. Working on the finished
 * line catches everything, whichever way it got there (log call, child binding, serializer), which
 * is why redaction is not done with pino's path list (fixed depths) or formatters (not applied to
 * child bindings).
 */
export function redactLine(line: string): string {
  if (!MIGHT_HOLD_SECRET.test(line)) return line;
  try {
    return `${JSON.stringify(redactDeep(JSON.parse(line)))}\n`;
  } catch {
    return line;
  }
}

/**
 * Standard output, written asynchronously in batches of up to 4 KiB, and at least every second: a
 * write per request line was a measurable share of each page's CPU under load. Whatever is still
 * buffered is flushed when the process exits.
 */
function asyncStdout(): pino.DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 1000 } as never);
  process.once('exit', () => {
    try {
      stream.flushSync();
    } catch {
      // Nothing more can be done about a closed stdout at exit.
    }
  });
  return stream;
}

export function createLogger(level: string, destination: pino.DestinationStream = asyncStdout()): Logger {
  return pino(
    {
      level,
      base: { service: 'accounts' },
      serializers: logSerializers,
      hooks: { streamWrite: redactLine },
    },
    destination,
  );
}
