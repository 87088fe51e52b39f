import { createServer, Server } from 'http';
import { createApp } from './app';
import { config } from './config/env';
import { db, seedDatabase } from './config/database';
import { logger } from './utils/logger';

const SHUTDOWN_GRACE_MS = 10_000;

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function installShutdownHandlers(server: Server): void {
  let shuttingDown = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info('shutting down', { signal });
    server.close((err) => {
      if (err) {
        logger.error('error while closing server', { err });
        process.exit(1);
      }
      process.exit(0);
    });
    setTimeout(() => {
      logger.warn('forcing exit after grace period', { graceMs: SHUTDOWN_GRACE_MS });
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

export async function main(): Promise<Server> {
  if (config.seedDemoData) {
    await seedDatabase(db);
  }
  const app = createApp();
  const server = createServer(app);
  // Keep-alive must outlive the load balancer's idle timeout.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  await listen(server, config.port, config.host);
  logger.info('bookstore-api listening', { host: config.host, port: config.port, env: config.env });
  installShutdownHandlers(server);
  return server;
}

process.on('unhandledRejection', (reason) => {
  logger.error('unhandled promise rejection', { reason });
});

if (require.main === module) {
  main().catch((err) => {
    logger.error('failed to start', { err });
    process.exit(1);
  });
}
