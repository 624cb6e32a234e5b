// Line-oriented logger: `level message key=value ...`. Callers pass ids and
// outcomes, never tokens, codes or secrets (docs/development.md, "Security rules every change keeps").
import type { LogLevel } from '../config/env.js';

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

function format(fields: Record<string, unknown> | undefined): string {
  if (!fields) return '';
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => {
      const s = v instanceof Error ? v.message : typeof v === 'string' ? v : JSON.stringify(v);
      return ` ${k}=${/[\s"=]/.test(s) ? JSON.stringify(s) : s}`;
    })
    .join('');
}

export function createLogger(level: LogLevel = 'info', sink: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const emit = (at: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (order[at] >= order[level]) sink(`${at.padEnd(5)} ${msg}${format(fields)}`);
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
