/**
 * What the load tools read from Linux's /proc: a process's CPU time (to report what the client
 * workers and a server spent) and this process's descriptor limit (each socket is one). Both answer
 * null where /proc is missing or unreadable.
 */
import { readFileSync } from 'node:fs';

// /proc counts CPU time in USER_HZ ticks, which Linux fixes at 100 per second for user space
const MS_PER_TICK = 10;

/** User plus system CPU time of process `pid` so far, in ms, or null when it cannot be read (gone, not Linux). */
export function cpuMs(pid: number): number | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // the command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) * MS_PER_TICK : null;
}

/** This process's soft limit of open files, or null when unknown or unlimited. */
export function openFileLimit(): number | null {
  let text: string;
  try {
    text = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
  const line = /^Max open files\s+(\d+)/m.exec(text);
  return line ? Number(line[1]) : null;
}

/** The whole machine's CPU time so far (all cores), in ms by kind, or null when /proc/stat cannot be read. */
export interface MachineCpu {
  user: number;
  system: number;
  /** network receive work done outside any process's account (loopback delivery deferred to ksoftirqd) */
  softirq: number;
  idle: number;
}

/** The machine's CPU time by kind (the first line of /proc/stat). */
export function machineCpuMs(): MachineCpu | null {
  let text: string;
  try {
    text = readFileSync('/proc/stat', 'utf8');
  } catch {
    return null;
  }
  // cpu  user nice system idle iowait irq softirq steal ...
  const f = (text.split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const at = (i: number) => (f[i] ?? 0) * MS_PER_TICK;
  return { user: at(0) + at(1), system: at(2) + at(5), softirq: at(6), idle: at(3) + at(4) };
}

/** The kernel's range of ephemeral ports, [32768, 60999] when it cannot be read. */
export function ephemeralPorts(): [number, number] {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (lo !== undefined && hi !== undefined && lo > 0 && hi >= lo) return [lo, hi];
  } catch {
    // not Linux: the Linux default
  }
  return [32_768, 60_999];
}
