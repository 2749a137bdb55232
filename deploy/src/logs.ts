/**
 * Compact rendering of the children's pino JSON lines for a terminal:
 * `12:34:56.789 identity  INFO  identity service serving port=8111 bus=pg`.
 */

const LEVELS: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };
const LEVEL_NUMBERS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };
const COLORS: Record<string, string> = { TRACE: "90", DEBUG: "90", INFO: "32", WARN: "33", ERROR: "31", FATAL: "35" };
const OMIT = new Set(["level", "time", "pid", "hostname", "service", "msg", "v"]);
const NAME_COLORS = ["36", "35", "34", "33", "32", "96", "95", "94"];

export type LogLevelName = "trace" | "debug" | "info" | "warn" | "error" | "fatal";

export function levelNumber(level: LogLevelName | string): number {
  return LEVEL_NUMBERS[level] ?? 30;
}

export interface FormatOptions {
  color: boolean;
  /** Width the process name is padded to. */
  nameWidth: number;
}

function paint(on: boolean, code: string, text: string): string {
  return on ? `\u001b[${code}m${text}\u001b[0m` : text;
}

export function nameColor(index: number): string {
  return NAME_COLORS[index % NAME_COLORS.length]!;
}

function formatValue(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]{1,80}$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

function clock(time: unknown): string {
  const date = typeof time === "number" || typeof time === "string" ? new Date(time) : new Date();
  return Number.isNaN(date.getTime()) ? new Date().toISOString().slice(11, 23) : date.toISOString().slice(11, 23);
}

export interface ParsedLine {
  level: number;
  text: string;
}

/**
 * Renders one output line of a child. JSON (pino) lines become `time name LEVEL msg k=v …` plus an error's stack;
 * other lines are printed as they are, at level info (stdout) or warn (stderr).
 */
export function formatChildLine(
  name: string,
  colorCode: string,
  raw: string,
  fromStderr: boolean,
  opts: FormatOptions,
): ParsedLine {
  const label = paint(opts.color, colorCode, name.padEnd(opts.nameWidth));
  let record: Record<string, unknown> | undefined;
  if (raw.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) record = parsed as Record<string, unknown>;
    } catch {
      record = undefined;
    }
  }
  if (!record) {
    return { level: fromStderr ? 40 : 30, text: `${clock(undefined)} ${label} ${raw}` };
  }
  const level = typeof record.level === "number" ? record.level : 30;
  const levelName = LEVELS[level] ?? String(record.level);
  const parts: string[] = [];
  let stack: string | undefined;
  for (const [key, value] of Object.entries(record)) {
    if (OMIT.has(key) || value === undefined) continue;
    if ((key === "err" || key === "error") && value && typeof value === "object") {
      const err = value as { message?: unknown; stack?: unknown; type?: unknown };
      parts.push(`${key}=${formatValue(err.message ?? err.type ?? value)}`);
      if (typeof err.stack === "string") stack = err.stack;
      continue;
    }
    parts.push(`${key}=${formatValue(value)}`);
  }
  const msg = typeof record.msg === "string" ? record.msg : "";
  let text = `${clock(record.time)} ${label} ${paint(opts.color, COLORS[levelName] ?? "0", levelName.padEnd(5))} ${msg}`;
  if (parts.length > 0) text += ` ${paint(opts.color, "90", parts.join(" "))}`;
  if (stack && level >= 50) text += `\n${stack.split("\n").map((l) => `${" ".repeat(13 + opts.nameWidth)}${l}`).join("\n")}`;
  return { level, text };
}
