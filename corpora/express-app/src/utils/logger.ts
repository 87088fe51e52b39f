/**
 * Minimal structured (JSON lines) logger used by services and startup code.
 * Request logging lives in middleware/logger.ts; this module is framework-free.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVEL_WEIGHT: Record<LogLevel, number> = {
  debug: 10,
  info: 20,
  warn: 30,
  error: 40,
};

export interface LogSink {
  write(line: string): void;
}

export type LogFields = Record<string, unknown>;

const stdoutSink: LogSink = {
  write: (line: string) => {
    process.stdout.write(`${line}\n`);
  },
};

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return {
      name: value.name,
      message: value.message,
      stack: value.stack,
    };
  }
  return value;
}

export class Logger {
  constructor(
    private readonly level: LogLevel = 'info',
    private readonly bindings: LogFields = {},
    private readonly sink: LogSink = stdoutSink,
  ) {}

  child(bindings: LogFields): Logger {
    return new Logger(this.level, { ...this.bindings, ...bindings }, this.sink);
  }

  withSink(sink: LogSink): Logger {
    return new Logger(this.level, this.bindings, sink);
  }

  isEnabled(level: LogLevel): boolean {
    return LEVEL_WEIGHT[level] >= LEVEL_WEIGHT[this.level];
  }

  debug(message: string, fields?: LogFields): void {
    this.log('debug', message, fields);
  }

  info(message: string, fields?: LogFields): void {
    this.log('info', message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    this.log('warn', message, fields);
  }

  error(message: string, fields?: LogFields): void {
    this.log('error', message, fields);
  }

  private log(level: LogLevel, message: string, fields?: LogFields): void {
    if (!this.isEnabled(level)) {
      return;
    }
    const entry = {
      time: new Date().toISOString(),
      level,
      msg: message,
      ...this.bindings,
      ...fields,
    };
    this.sink.write(JSON.stringify(entry, errorReplacer));
  }
}

function levelFromEnv(raw: string | undefined): LogLevel {
  switch (raw) {
    case 'debug':
    case 'info':
    case 'warn':
    case 'error':
      return raw;
    default:
      return process.env.NODE_ENV === 'test' ? 'error' : 'info';
  }
}

export const logger = new Logger(levelFromEnv(process.env.LOG_LEVEL), { service: 'bookstore-api' });
