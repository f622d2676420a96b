// A private, isolated Linux test desktop: Xvfb + its own session D-Bus +
// at-spi-bus-launcher (a11y bus) with every XDG dir in a private temp folder.
//
//   const desktop = await startTestDesktop();
//   const app = await desktop.launch("/usr/bin/python3", ["e2e/fixtures/fixtureApp.py"], { waitForWindow: "Overseer Fixture" });
//   ...
//   await desktop.stop();
//
// Every process is spawned in its own session (setsid) and recorded with its
// /proc start time; stop() ends only those processes and their session
// members (see procs.ts), never anything by name.

import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Message, MessageFlag, sessionBus, type MessageBus } from "dbus-next";
import {
  MARKER_VAR,
  collectOwned,
  killOwnedSync,
  readCmdline,
  readStat,
  signal,
  terminateOwned,
  type Ownership,
  type RecordedProcess,
} from "./procs.js";

export interface TestDesktop {
  /** X display of the private Xvfb, e.g. ":57". */
  display: string;
  /** Private folder: XDG dirs, session bus socket, logs/, pids.json. Removed by stop(). */
  dir: string;
  /**
   * Environment for child processes: process.env plus DISPLAY,
   * DBUS_SESSION_BUS_ADDRESS, XDG_{RUNTIME_DIR,CONFIG_HOME,CACHE_HOME,DATA_HOME,STATE_HOME},
   * GDK_BACKEND=x11, GSETTINGS_BACKEND=memory, QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1,
   * ACCESSIBILITY_ENABLED=1 and OVERSEER_TEST_DESKTOP=<dir> (marks processes
   * that stop() ends); without NO_AT_BRIDGE, GTK_A11Y, AT_SPI_BUS_ADDRESS,
   * WAYLAND_DISPLAY, SESSION_MANAGER, DBUS_STARTER_*. HOME is kept.
   */
  env: Record<string, string>;
  /** Answer of org.a11y.Bus.GetAddress on the private session bus. */
  a11yBusAddress: string;
  /**
   * Spawn `command` in its own session with `env` (+ options.env); stdout and
   * stderr go to <dir>/logs/app<N>-<name>.{out,err}.log. With waitForWindow,
   * resolves once a window of that process (or of its session) with that
   * name is on the a11y bus; rejects (and stops the app) with the log tail if
   * the app exits first or timeoutMs (default 15 s) passes.
   */
  launch(
    command: string,
    args?: string[],
    options?: { env?: Record<string, string>; waitForWindow?: string | RegExp; timeoutMs?: number },
  ): Promise<LaunchedApp>;
  /**
   * Poll registry root -> applications -> their top-level children for a
   * frame/window/dialog/alert/file chooser whose Name equals `title` (string)
   * or matches it (RegExp). Any app; default timeout 15 s.
   */
  waitForWindow(title: string | RegExp, timeoutMs?: number): Promise<{ busName: string; path: string; pid: number }>;
  /** Stop every launched app and every desktop process (by pid), remove dir. Idempotent. */
  stop(): Promise<void>;
}

export interface LaunchedApp {
  pid: number;
  /** SIGTERM to the app's process group, SIGKILL after 3 s, then sweep its session. Idempotent. */
  stop(): Promise<void>;
  /** Exit code; null when it died of a signal. */
  exited: Promise<number | null>;
}

export interface StartTestDesktopOptions {
  width?: number;
  height?: number;
  /**
   * Leave the desktop running when this Node process exits (used by
   * `cli.ts start`): no exit/signal cleanup hooks, child handles unref'd.
   * Stop it later with `cli.ts stop <dir>` (which reads <dir>/pids.json).
   */
  detached?: boolean;
}

export interface PidsFile {
  version: 1;
  dir: string;
  display: string;
  marker: string;
  startTicks: string;
  createdAt: string;
  processes: RecordedProcess[];
}

/** Prefix of the private folder's name; `cli.ts stop` refuses other folders. */
export const DESKTOP_DIR_PREFIX = "overseer-desktop-";

const ATSPI_ROLE_ALERT = 2;
const ATSPI_ROLE_DIALOG = 16;
const ATSPI_ROLE_FILE_CHOOSER = 19;
const ATSPI_ROLE_FRAME = 23;
const ATSPI_ROLE_WINDOW = 69;
const WINDOW_ROLES = new Set([ATSPI_ROLE_FRAME, ATSPI_ROLE_WINDOW, ATSPI_ROLE_DIALOG, ATSPI_ROLE_ALERT, ATSPI_ROLE_FILE_CHOOSER]);

const DISPLAY_MIN = 50;
const DISPLAY_MAX = 399;
const STARTUP_TIMEOUT_MS = 10_000;
const DBUS_CALL_TIMEOUT_MS = 1000;
const DEFAULT_WINDOW_TIMEOUT_MS = 15_000;

/** Variables removed from the inherited environment. */
const REMOVED_VARS = [
  "NO_AT_BRIDGE", // GTK3: hides the app from AT-SPI
  "GTK_A11Y", // GTK4: "none" hides the app from AT-SPI
  "AT_SPI_BUS_ADDRESS", // would point apps at another session's a11y bus
  "WAYLAND_DISPLAY", // GTK would open on the host's Wayland instead of our Xvfb
  "SESSION_MANAGER", // host session manager
  "DBUS_STARTER_ADDRESS",
  "DBUS_STARTER_BUS_TYPE",
];

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------
// small D-Bus helpers (low-level Message API: no introspection round trips)

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

async function dbusCall(
  bus: MessageBus,
  destination: string,
  objectPath: string,
  iface: string,
  member: string,
  options: { signature?: string; body?: unknown[]; timeoutMs?: number; noAutoStart?: boolean } = {},
): Promise<unknown[]> {
  const message = new Message({
    destination,
    path: objectPath,
    interface: iface,
    member,
    signature: options.signature ?? "",
    body: options.body ?? [],
    ...(options.noAutoStart === true ? { flags: MessageFlag.NO_AUTO_START } : {}),
  });
  const reply = await withTimeout(bus.call(message), options.timeoutMs ?? DBUS_CALL_TIMEOUT_MS, `${destination} ${objectPath} ${iface}.${member}`);
  const body: unknown = reply?.body;
  return Array.isArray(body) ? (body as unknown[]) : [];
}

function variantValue(value: unknown): unknown {
  if (typeof value === "object" && value !== null && "value" in value && "signature" in value) {
    return (value as { value: unknown }).value;
  }
  return value;
}

function asRefs(value: unknown): Array<{ busName: string; path: string }> {
  if (!Array.isArray(value)) return [];
  const refs: Array<{ busName: string; path: string }> = [];
  for (const item of value as unknown[]) {
    if (Array.isArray(item) && typeof item[0] === "string" && typeof item[1] === "string") {
      refs.push({ busName: item[0], path: item[1] });
    }
  }
  return refs;
}

/**
 * Connect to a bus and wait for the Hello reply. A daemon's socket file
 * appears at bind(), a moment before listen(): a connection attempt in that
 * window is refused, so retry until `timeoutMs`.
 */
async function connectBus(address: string, timeoutMs = STARTUP_TIMEOUT_MS): Promise<MessageBus> {
  const deadline = Date.now() + timeoutMs;
  let lastError = "timeout";
  for (;;) {
    const bus = sessionBus({ busAddress: address });
    const outcome = await new Promise<true | string>((resolve) => {
      const timer = setTimeout(() => resolve("no Hello reply within 2000 ms"), 2000);
      bus.once("connect", () => {
        clearTimeout(timer);
        resolve(true);
      });
      bus.on("error", (error: unknown) => {
        clearTimeout(timer);
        resolve(error instanceof Error ? error.message : String(error));
      });
    });
    // Keep an error listener for good: a bus that goes away (e.g. during
    // stop) must not crash the test process.
    bus.on("error", () => undefined);
    if (outcome === true) return bus;
    lastError = outcome;
    try {
      bus.disconnect();
    } catch {
      // never connected
    }
    if (Date.now() > deadline) throw new Error(`cannot connect to ${address}: ${lastError}`);
    await sleep(10);
  }
}

// ---------------------------------------------------------------------------
// cleanup hooks for crashed/aborted runs (best effort, synchronous)

const liveDesktops = new Set<{ own: Ownership; dir: string }>();
let hooksInstalled = false;

function emergencyCleanup(): void {
  for (const desktop of liveDesktops) {
    try {
      killOwnedSync(desktop.own);
    } catch {
      // best effort
    }
    try {
      rmSync(desktop.dir, { recursive: true, force: true });
    } catch {
      // best effort
    }
  }
  liveDesktops.clear();
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", emergencyCleanup);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const handler = (): void => {
      // Someone else handles this signal: they decide when to exit, and the
      // 'exit' hook cleans up then.
      if (process.listenerCount(sig) > 1) return;
      emergencyCleanup();
      process.removeListener(sig, handler);
      // Keep the default behaviour: die of the signal.
      process.kill(process.pid, sig);
    };
    process.on(sig, handler);
  }
}

// ---------------------------------------------------------------------------
// process helpers

interface Spawned {
  child: ChildProcess;
  pid: number;
  exited: Promise<number | null>;
  hasExited: () => boolean;
  logFiles: string[];
}

async function spawnLogged(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  logBase: string,
  detachedDesktop: boolean,
): Promise<Spawned> {
  const outFile = `${logBase}.out.log`;
  const errFile = `${logBase}.err.log`;
  const out = openSync(outFile, "a");
  const err = openSync(errFile, "a");
  let child: ChildProcess;
  try {
    child = spawn(command, [...args], { env, detached: true, stdio: ["ignore", out, err] });
  } finally {
    closeSync(out);
    closeSync(err);
  }
  let done = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      done = true;
      resolve(code);
    });
    child.once("error", () => {
      done = true;
      resolve(null);
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", () => resolve());
    child.once("error", (error) => reject(new Error(`cannot start ${command}: ${error.message}`)));
  });
  if (child.pid === undefined) throw new Error(`cannot start ${command}: no pid`);
  if (detachedDesktop) child.unref();
  return { child, pid: child.pid, exited, hasExited: () => done, logFiles: [outFile, errFile] };
}

function record(pid: number, role: string): RecordedProcess | null {
  const stat = readStat(pid);
  if (stat === null) return null;
  return { pid, startTime: stat.startTime, session: stat.session, role, command: readCmdline(pid) };
}

function logTail(files: readonly string[], maxChars = 2000): string {
  const parts: string[] = [];
  for (const file of files) {
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    if (text.trim().length === 0) continue;
    const tail = text.length > maxChars ? `…${text.slice(-maxChars)}` : text;
    parts.push(`--- ${path.basename(file)} (tail) ---\n${tail.trimEnd()}`);
  }
  return parts.length > 0 ? parts.join("\n") : "(no output in logs)";
}

function matchesTitle(title: string | RegExp, name: string): boolean {
  if (typeof title === "string") return name === title;
  title.lastIndex = 0;
  return title.test(name);
}

function describeTitle(title: string | RegExp): string {
  return typeof title === "string" ? JSON.stringify(title) : String(title);
}

function displayCandidates(): number[] {
  const span = DISPLAY_MAX - DISPLAY_MIN + 1;
  const base = Math.floor(Math.random() * span);
  const result: number[] = [];
  for (let i = 0; i < span; i += 1) result.push(DISPLAY_MIN + ((base + i) % span));
  return result;
}

function displayLooksFree(n: number): boolean {
  return !existsSync(`/tmp/.X11-unix/X${n}`) && !existsSync(`/tmp/.X${n}-lock`);
}

function lockOwner(n: number): number | null {
  try {
    const pid = Number(readFileSync(`/tmp/.X${n}-lock`, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------

export async function startTestDesktop(options: StartTestDesktopOptions = {}): Promise<TestDesktop> {
  const width = options.width ?? 1920;
  const height = options.height ?? 1080;
  const detached = options.detached === true;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 64 || height < 64) {
    throw new Error(`startTestDesktop: bad screen size ${width}x${height}`);
  }

  const base = os.tmpdir().length <= 40 ? os.tmpdir() : "/tmp"; // unix socket paths are limited to 107 bytes
  const dir = mkdtempSync(path.join(base, DESKTOP_DIR_PREFIX));
  const logs = path.join(dir, "logs");
  const xdg = {
    XDG_RUNTIME_DIR: path.join(dir, "runtime"),
    XDG_CONFIG_HOME: path.join(dir, "config"),
    XDG_CACHE_HOME: path.join(dir, "cache"),
    XDG_DATA_HOME: path.join(dir, "data"),
    XDG_STATE_HOME: path.join(dir, "state"),
  };
  for (const d of [logs, ...Object.values(xdg)]) mkdirSync(d, { recursive: true, mode: 0o700 });

  const busAddress = `unix:path=${path.join(dir, "bus")}`;
  const own: Ownership & { recorded: RecordedProcess[]; marker: string } = { recorded: [], marker: dir, startTicks: "0" };
  const hookEntry = { own, dir };
  let display = "";

  const baseEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) baseEnv[key] = value;
  }
  for (const key of REMOVED_VARS) delete baseEnv[key];
  const makeEnv = (): Record<string, string> => ({
    ...baseEnv,
    DISPLAY: display,
    DBUS_SESSION_BUS_ADDRESS: busAddress,
    ...xdg,
    GDK_BACKEND: "x11",
    GSETTINGS_BACKEND: "memory", // deterministic settings, no dconf-service
    QT_LINUX_ACCESSIBILITY_ALWAYS_ON: "1",
    ACCESSIBILITY_ENABLED: "1",
    [MARKER_VAR]: dir,
  });

  const writePids = (): void => {
    const file: PidsFile = {
      version: 1,
      dir,
      display,
      marker: dir,
      startTicks: own.startTicks,
      createdAt: new Date().toISOString(),
      processes: own.recorded,
    };
    try {
      writeFileSync(path.join(dir, "pids.json"), `${JSON.stringify(file, null, 2)}\n`);
    } catch {
      // dir already removed
    }
  };
  const track = (pid: number, role: string): void => {
    if (own.recorded.some((r) => r.pid === pid)) return;
    const rec = record(pid, role);
    if (rec === null) return;
    own.recorded.push(rec);
    if (own.startTicks === "0" || BigInt(rec.startTime) < BigInt(own.startTicks)) own.startTicks = rec.startTime;
    writePids();
  };

  if (!detached) {
    installHooks();
    liveDesktops.add(hookEntry);
  }

  let sessionConn: MessageBus | null = null;
  let a11yConn: MessageBus | null = null;
  let xvfbPid = 0;

  const abort = async (error: unknown): Promise<never> => {
    sessionConn?.disconnect();
    a11yConn?.disconnect();
    await terminateOwned(own, { graceMs: 500, last: xvfbPid > 0 ? [xvfbPid] : [] });
    liveDesktops.delete(hookEntry);
    await rm(dir, { recursive: true, force: true });
    throw error instanceof Error ? error : new Error(String(error));
  };

  try {
    // 1. Xvfb on a free display, and (in parallel) the session bus.
    const startXvfb = async (): Promise<void> => {
      let lastError = "no free display number";
      let attempts = 0;
      for (const n of displayCandidates()) {
        if (attempts >= 12) break;
        if (!displayLooksFree(n)) continue;
        attempts += 1;
        const xvfb = await spawnLogged(
          "Xvfb",
          [`:${n}`, "-screen", "0", `${width}x${height}x24`, "-nolisten", "tcp", "-noreset"],
          { ...baseEnv, [MARKER_VAR]: dir },
          path.join(logs, `Xvfb-${n}`),
          detached,
        );
        track(xvfb.pid, "Xvfb");
        const deadline = Date.now() + STARTUP_TIMEOUT_MS;
        let ok = false;
        while (Date.now() < deadline) {
          if (xvfb.hasExited()) break;
          if (existsSync(`/tmp/.X11-unix/X${n}`) && lockOwner(n) === xvfb.pid) {
            ok = true;
            break;
          }
          await sleep(5);
        }
        if (ok) {
          display = `:${n}`;
          xvfbPid = xvfb.pid;
          return;
        }
        lastError = `Xvfb :${n} failed: ${logTail(xvfb.logFiles, 500)}`;
        signal(xvfb.pid, "SIGKILL");
        await xvfb.exited;
      }
      throw new Error(`startTestDesktop: could not start Xvfb (${lastError})`);
    };
    const startBus = async (): Promise<void> => {
      const daemon = await spawnLogged(
        "dbus-daemon",
        ["--session", "--nofork", "--nopidfile", `--address=${busAddress}`],
        { ...baseEnv, ...xdg, [MARKER_VAR]: dir }, // DISPLAY is patched in below for activated services
        path.join(logs, "dbus-session"),
        detached,
      );
      track(daemon.pid, "dbus-daemon (session)");
      const socket = path.join(dir, "bus");
      const deadline = Date.now() + STARTUP_TIMEOUT_MS;
      while (!existsSync(socket)) {
        if (daemon.hasExited()) throw new Error(`session dbus-daemon exited: ${logTail(daemon.logFiles)}`);
        if (Date.now() > deadline) throw new Error("session dbus-daemon did not create its socket");
        await sleep(5);
      }
    };
    // allSettled: if one fails, the other must have finished spawning (and
    // recorded its process) before abort() sweeps.
    const started = await Promise.allSettled([startXvfb(), startBus()]);
    for (const result of started) {
      if (result.status === "rejected") throw result.reason;
    }
    const env = makeEnv();

    // Services activated by the session bus (at-spi-bus-launcher if an app
    // asks before ours answers, dconf, portals...) need DISPLAY too.
    sessionConn = await connectBus(busAddress);
    await dbusCall(sessionConn, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "UpdateActivationEnvironment", {
      signature: "a{ss}",
      body: [{ DISPLAY: display, GDK_BACKEND: "x11", GSETTINGS_BACKEND: "memory", QT_LINUX_ACCESSIBILITY_ALWAYS_ON: "1", ACCESSIBILITY_ENABLED: "1" }],
      timeoutMs: STARTUP_TIMEOUT_MS,
    });

    // 2. The accessibility bus.
    const launcher = await spawnLogged("/usr/libexec/at-spi-bus-launcher", ["--launch-immediately"], env, path.join(logs, "at-spi-bus-launcher"), detached);
    track(launcher.pid, "at-spi-bus-launcher");
    let a11yBusAddress = "";
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (a11yBusAddress === "") {
      if (launcher.hasExited()) throw new Error(`at-spi-bus-launcher exited: ${logTail(launcher.logFiles)}`);
      if (Date.now() > deadline) throw new Error(`org.a11y.Bus.GetAddress did not answer: ${logTail(launcher.logFiles)}`);
      try {
        // NO_AUTO_START: never let the bus activate a second launcher.
        const [address] = await dbusCall(sessionConn, "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", { noAutoStart: true });
        if (typeof address === "string" && address.length > 0) a11yBusAddress = address;
      } catch {
        // not yet on the bus
      }
      if (a11yBusAddress === "") await sleep(10);
    }
    sessionConn.disconnect();
    sessionConn = null;
    a11yConn = await connectBus(a11yBusAddress);

    // 3. The registry. The a11y bus would D-Bus-activate it on first use, but
    // then it is re-parented to init, which on this kind of machine reaps it
    // only every ~2 s after stop (a <defunct> entry in ps). Started here it is
    // our child: reaped at once, and the first waitForWindow does not pay for
    // the activation.
    const registryd = await spawnLogged(
      "/usr/libexec/at-spi2-registryd",
      [],
      { ...env, AT_SPI_BUS_ADDRESS: a11yBusAddress },
      path.join(logs, "at-spi2-registryd"),
      detached,
    );
    track(registryd.pid, "at-spi2-registryd");
    const registryDeadline = Date.now() + STARTUP_TIMEOUT_MS;
    for (;;) {
      const [owned] = await dbusCall(a11yConn, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", {
        signature: "s",
        body: ["org.a11y.atspi.Registry"],
      });
      if (owned === true) break;
      // Exited: most likely lost the race for the name to an activated copy.
      if (registryd.hasExited()) break;
      if (Date.now() > registryDeadline) throw new Error(`at-spi2-registryd did not take its bus name: ${logTail(registryd.logFiles)}`);
      await sleep(5);
    }
    await dbusCall(a11yConn, "org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root", "org.a11y.atspi.Accessible", "GetChildren", {
      timeoutMs: STARTUP_TIMEOUT_MS,
    });
    for (const p of collectOwned(own)) track(p.pid, p.comm);

    return makeDesktop({ dir, display, env, a11yBusAddress, a11yConn, own, xvfbPid, logs, detached, hookEntry, track });
  } catch (error) {
    return abort(error);
  }
}

interface DesktopParts {
  dir: string;
  display: string;
  env: Record<string, string>;
  a11yBusAddress: string;
  a11yConn: MessageBus;
  own: Ownership & { recorded: RecordedProcess[] };
  xvfbPid: number;
  logs: string;
  detached: boolean;
  hookEntry: { own: Ownership; dir: string };
  track: (pid: number, role: string) => void;
}

function makeDesktop(parts: DesktopParts): TestDesktop {
  const { dir, display, env, a11yBusAddress, a11yConn, own, xvfbPid, logs, detached, hookEntry, track } = parts;
  const apps = new Set<LaunchedApp>();
  let stopping: Promise<void> | null = null;
  let appSeq = 0;

  interface FoundWindow {
    busName: string;
    path: string;
    pid: number;
  }

  // Unique bus names are never reused while the bus lives: cache their pids.
  const pidOfBusName = new Map<string, number>();
  const busPid = async (busName: string): Promise<number> => {
    const cached = pidOfBusName.get(busName);
    if (cached !== undefined) return cached;
    // Answered by the bus daemon itself: never delayed by a busy app.
    const [pidValue] = await dbusCall(a11yConn, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID", {
      signature: "s",
      body: [busName],
    });
    const pid = typeof pidValue === "number" ? pidValue : 0;
    pidOfBusName.set(busName, pid);
    return pid;
  };

  const checkApp = async (appRef: { busName: string; path: string }, title: string | RegExp, acceptPid: (pid: number) => boolean): Promise<FoundWindow | null> => {
    const pid = await busPid(appRef.busName);
    if (!acceptPid(pid)) return null;
    const [childrenValue] = await dbusCall(a11yConn, appRef.busName, appRef.path, "org.a11y.atspi.Accessible", "GetChildren");
    const children = asRefs(childrenValue);
    const matches = await Promise.all(
      children.map(async (child): Promise<boolean> => {
        const [nameValue] = await dbusCall(a11yConn, child.busName, child.path, "org.freedesktop.DBus.Properties", "Get", {
          signature: "ss",
          body: ["org.a11y.atspi.Accessible", "Name"],
        });
        const name = variantValue(nameValue);
        if (typeof name !== "string" || !matchesTitle(title, name)) return false;
        const [role] = await dbusCall(a11yConn, child.busName, child.path, "org.a11y.atspi.Accessible", "GetRole");
        return typeof role === "number" && WINDOW_ROLES.has(role);
      }),
    );
    const hit = children[matches.indexOf(true)];
    return hit === undefined ? null : { busName: hit.busName, path: hit.path, pid };
  };

  /**
   * One pass over registry root -> applications -> their top-level children.
   * Resolves with the first match; a frozen app (calls time out) delays the
   * answer only when nothing else matches.
   */
  const scanOnce = async (title: string | RegExp, acceptPid: (pid: number) => boolean): Promise<FoundWindow | null> => {
    const [appsValue] = await dbusCall(a11yConn, "org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root", "org.a11y.atspi.Accessible", "GetChildren");
    const appRefs = asRefs(appsValue);
    if (appRefs.length === 0) return null;
    return new Promise<FoundWindow | null>((resolve) => {
      let pending = appRefs.length;
      for (const appRef of appRefs) {
        checkApp(appRef, title, acceptPid)
          .then(
            (hit) => {
              if (hit !== null) resolve(hit);
            },
            () => undefined, // app busy, frozen or gone: look again next round
          )
          .finally(() => {
            pending -= 1;
            if (pending === 0) resolve(null);
          });
      }
    });
  };

  const waitForWindowImpl = async (
    title: string | RegExp,
    timeoutMs: number,
    acceptPid: (pid: number) => boolean,
    giveUp: () => string | null,
  ): Promise<FoundWindow> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (stopping !== null) throw new Error("waitForWindow: the test desktop is stopping");
      const reason = giveUp();
      if (reason !== null) throw new Error(reason);
      let found: FoundWindow | null = null;
      try {
        found = await scanOnce(title, acceptPid);
      } catch {
        found = null;
      }
      if (found !== null) return found;
      if (Date.now() >= deadline) {
        throw new Error(`waitForWindow: no window named ${describeTitle(title)} appeared on the a11y bus of ${display} within ${timeoutMs} ms`);
      }
      await sleep(Math.min(100, Math.max(0, deadline - Date.now())));
    }
  };

  const waitForWindow = (title: string | RegExp, timeoutMs = DEFAULT_WINDOW_TIMEOUT_MS): Promise<FoundWindow> =>
    waitForWindowImpl(title, timeoutMs, () => true, () => null);

  const launch = async (
    command: string,
    args: string[] = [],
    options: { env?: Record<string, string>; waitForWindow?: string | RegExp; timeoutMs?: number } = {},
  ): Promise<LaunchedApp> => {
    if (stopping !== null) throw new Error("launch: the test desktop is stopping");
    appSeq += 1;
    const label = `app${appSeq}-${path.basename(command).replace(/[^A-Za-z0-9._-]/g, "_")}`;
    const spawned = await spawnLogged(command, args, { ...env, ...(options.env ?? {}) }, path.join(logs, label), detached);
    track(spawned.pid, `app ${command}`);
    const appPid = spawned.pid;
    const appOwn: Ownership = { recorded: own.recorded.filter((r) => r.pid === appPid), marker: null, startTicks: own.startTicks };
    let appStopping: Promise<void> | null = null;
    const app: LaunchedApp = {
      pid: appPid,
      exited: spawned.exited,
      stop: () => {
        appStopping ??= (async () => {
          if (!spawned.hasExited()) {
            signal(-appPid, "SIGTERM");
            const exitedInTime = await Promise.race([spawned.exited.then(() => true), sleep(3000).then(() => false)]);
            if (!exitedInTime) {
              signal(-appPid, "SIGKILL");
              await spawned.exited;
            }
          }
          // Anything left in the app's session (children, re-parented helpers).
          await terminateOwned(appOwn, { graceMs: 1000 });
          apps.delete(app);
        })();
        return appStopping;
      },
    };
    apps.add(app);

    if (options.waitForWindow !== undefined) {
      const timeoutMs = options.timeoutMs ?? DEFAULT_WINDOW_TIMEOUT_MS;
      const inApp = (pid: number): boolean => {
        if (pid === appPid) return true;
        const stat = readStat(pid);
        return stat !== null && stat.session === appPid;
      };
      try {
        await waitForWindowImpl(options.waitForWindow, timeoutMs, inApp, () => {
          if (!spawned.hasExited()) return null;
          const code = spawned.child.exitCode;
          const sig = spawned.child.signalCode;
          return `launch(${command}): exited (${sig !== null ? `signal ${sig}` : `code ${String(code)}`}) before a window named ${describeTitle(options.waitForWindow ?? "")} appeared\n${logTail(spawned.logFiles)}`;
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const full = message.startsWith("launch(") ? message : `launch(${command}): ${message}\n${logTail(spawned.logFiles)}`;
        await app.stop();
        throw new Error(full);
      }
    }
    return app;
  };

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      try {
        a11yConn.disconnect();
      } catch {
        // already closed
      }
      await Promise.all([...apps].map((app) => app.stop()));
      await terminateOwned(own, { graceMs: 2000, last: [xvfbPid], reapMs: 2500 });
      liveDesktops.delete(hookEntry);
      await rm(dir, { recursive: true, force: true });
    })();
    return stopping;
  };

  return { display, dir, env, a11yBusAddress, launch, waitForWindow, stop };
}
