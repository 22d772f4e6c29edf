import { createApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import type { AppLocals } from './locals.ts';
import { createLogger } from './logger.ts';

// More stray exceptions than this within a minute means the process is broken, not one bad
// request: exit non-zero and let the supervisor start a fresh one.
const STRAY_ERROR_BUDGET = 20;

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    // One clear line, no stack: the message already names the variable.
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

async function main() {
  const config = readConfig();
  const logger = createLogger(config.LOG_LEVEL);

  // Express 5 turns errors of handlers (sync and async) into the crash page. These catch what
  // escapes a request entirely (a throw in a timer or an event listener): log it and keep serving,
  // so one bad request cannot take the process down.
  let strayErrors: number[] = [];
  const onStray = (kind: string) => (error: unknown) => {
    const now = Date.now();
    strayErrors = [...strayErrors.filter((at) => now - at < 60_000), now];
    logger.error({ err: error, kind }, 'error outside any request');
    if (strayErrors.length > STRAY_ERROR_BUDGET) {
      logger.fatal('too many errors outside requests: exiting');
      process.exit(1);
    }
  };
  process.on('uncaughtException', onStray('uncaughtException'));
  process.on('unhandledRejection', onStray('unhandledRejection'));

  const app = await createApp(config, logger);
  const locals = app.locals as AppLocals;
  const server = app.listen(config.PORT, config.HOST);
  // Outlive the load balancer's idle timeout (commonly 60 s), so it never reuses a connection we
  // are closing at that instant (a source of sporadic 502s). Shutdown closes idle ones anyway.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('error', (error) => {
    process.stderr.write(`accounts cannot listen on ${config.HOST}:${config.PORT}: ${error.message}\n`);
    process.exit(1);
  });
  server.on('listening', () => {
    const address = server.address();
    logger.info({ port: typeof address === 'object' && address ? address.port : config.PORT }, 'accounts listening');
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    locals.shuttingDown = true;
    logger.info({ signal }, 'shutting down: readiness is 503, finishing in-flight requests');
    const deadline = setTimeout(() => {
      logger.warn('shutdown timeout: closing the remaining connections');
      server.closeAllConnections();
      // Should a shutdown hook hang after that, leave anyway.
      setTimeout(() => process.exit(0), 1_000).unref();
    }, config.SHUTDOWN_DELAY_MS + config.SHUTDOWN_TIMEOUT_MS);
    deadline.unref();

    // Optional grace period for load balancers to notice readiness before we stop accepting.
    if (config.SHUTDOWN_DELAY_MS > 0) await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DELAY_MS));

    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Kept-alive connections go as soon as they are idle: now, or right after their last answer.
    server.closeIdleConnections();
    const sweeper = setInterval(() => server.closeIdleConnections(), 100);
    await closed;
    clearInterval(sweeper);
    for (const hook of locals.onShutdown) {
      await hook().catch((error: unknown) => logger.warn({ err: error }, 'shutdown hook failed'));
    }
    logger.info('shutdown complete');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`accounts failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
