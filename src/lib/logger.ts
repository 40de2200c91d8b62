const levels = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof levels, "silent">;

export type Logger = Record<Level, (msg: string, fields?: Record<string, unknown>) => void>;

/** One JSON object per line, so Workers Logs can index every field. Never log secrets. */
export function createLogger(base: Record<string, unknown>, level = "info"): Logger {
  const threshold = levels[level as keyof typeof levels] ?? levels.info;
  const emit = (lvl: Level) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (levels[lvl] < threshold) return;
    const line = JSON.stringify({ level: lvl, msg, time: new Date().toISOString(), ...base, ...fields });
    if (lvl === "error") console.error(line);
    else if (lvl === "warn") console.warn(line);
    else console.log(line);
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}
