import { createApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import type { AppLocals } from './locals.ts';

async function main() {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const app = await createApp(config, logger);
  const server = app.listen(config.PORT, config.HOST, () => {
    logger.info({ port: config.PORT }, 'accounts listening');
  });

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    (app.locals as AppLocals).shuttingDown = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    // Stop accepting; idle keep-alive sockets close now, busy ones after their response.
    server.close(() => {
      logger.info('shutdown complete');
      process.exit(0);
    });
    server.closeIdleConnections();
    setTimeout(() => {
      logger.warn('shutdown timeout: closing remaining connections');
      server.closeAllConnections();
      process.exit(0);
    }, config.SHUTDOWN_TIMEOUT_MS).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`accounts failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
