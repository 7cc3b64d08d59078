/** Anything with these four methods is a logger; `console` is one. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const noop = (): void => {};

/** The default: says nothing. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };
