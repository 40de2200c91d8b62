const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof levels, "silent">;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Whether a line of this level is written, so a caller can skip building its fields. */
  enabled(level: Level): boolean;
}

const write = { debug: console.log, info: console.log, warn: console.warn, error: console.error };

/**
 * One JSON object per line, so Workers Logs can index every field. Never log secrets. A line
 * below the threshold costs one comparison: no object, no string.
 */
class JsonLogger implements Logger {
  readonly #threshold: number;
  readonly #base: Record<string, unknown>;
  constructor(base: Record<string, unknown>, level: string) {
    this.#base = base;
    this.#threshold = levels[level as keyof typeof levels] ?? levels.info;
  }
  enabled(level: Level) {
    return levels[level] >= this.#threshold;
  }
  #emit(level: Level, msg: string, fields?: Record<string, unknown>) {
    if (!this.enabled(level)) return;
    write[level](JSON.stringify({ level, msg, time: new Date().toISOString(), ...this.#base, ...fields }));
  }
  debug(msg: string, fields?: Record<string, unknown>) {
    this.#emit("debug", msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>) {
    this.#emit("info", msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>) {
    this.#emit("warn", msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>) {
    this.#emit("error", msg, fields);
  }
}

export const createLogger = (base: Record<string, unknown>, level = "info"): Logger => new JsonLogger(base, level);
