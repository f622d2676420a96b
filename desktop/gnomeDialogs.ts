// The consent dialogs of the private GNOME session, answered the way the person would: found on
// the accessibility bus, then clicked. gnome-shell draws the screenshot question itself (its buttons
// expose no action, so the person's hand clicks where they are); the remote-desktop dialog is
// xdg-desktop-portal-gnome's own window (GTK 4: its check box toggles and its button clicks
// through AT-SPI actions, and its places are window-relative, as everywhere on Wayland).

import { setTimeout as sleep } from 'node:timers/promises';
import { type MessageBus } from 'dbus-next';
import { ACCESSIBLE, accessibleProperty, asRefs, connectBus, dbusCall, type ObjectRef } from './dbus.js';
import type { GnomeDesktop } from './gnomeDesktop.js';

/** AT-SPI state bit of a ticked check box. */
const STATE_CHECKED = 4;
const MAX_NODES = 3000;

interface Found extends ObjectRef {
  role: string;
  name: string;
}

/** The children, one by one (GTK 4 does not answer GetChildren). */
async function children(bus: MessageBus, ref: ObjectRef): Promise<ObjectRef[]> {
  const n = Math.min(Number(await accessibleProperty(bus, ref, 'ChildCount')), 200);
  const out: ObjectRef[] = [];
  for (let i = 0; i < n; i++) {
    const [child] = await dbusCall(bus, ref.busName, ref.path, ACCESSIBLE, 'GetChildAtIndex', { signature: 'i', body: [i], timeoutMs: 3000 });
    const [one] = asRefs([child]);
    if (one !== undefined) out.push(one);
  }
  return out;
}

/** AT-SPI role numbers of the roles looked for (GetRoleName's words differ between toolkits; GetRole's numbers do not). */
const ROLES: Record<number, string> = { 7: 'check box', 23: 'frame', 29: 'label', 43: 'push button', 75: 'application' };

async function describe(bus: MessageBus, ref: ObjectRef): Promise<Found> {
  const [[roleNumber], name] = await Promise.all([
    dbusCall(bus, ref.busName, ref.path, ACCESSIBLE, 'GetRole', { timeoutMs: 3000 }),
    accessibleProperty(bus, ref, 'Name'),
  ]);
  return { ...ref, role: ROLES[Number(roleNumber)] ?? `role ${String(roleNumber)}`, name: String(name) };
}

/** The first element of `app` with this role and name (breadth first), or undefined. */
async function find(bus: MessageBus, app: string, role: string, name: string | RegExp): Promise<Found | undefined> {
  const root = { busName: 'org.a11y.atspi.Registry', path: '/org/a11y/atspi/accessible/root' };
  const apps = await Promise.all((await children(bus, root)).map((ref) => describe(bus, ref).catch(() => undefined)));
  const queue: ObjectRef[] = apps.filter((a): a is Found => a !== undefined && a.name === app);
  for (let seen = 0; queue.length > 0 && seen < MAX_NODES; seen++) {
    const ref = queue.shift() as ObjectRef;
    const node = await describe(bus, ref).catch(() => undefined);
    if (node === undefined) continue;
    if (node.role === role && (typeof name === 'string' ? node.name === name : name.test(node.name))) return node;
    queue.push(...(await children(bus, ref).catch(() => [])));
  }
  return undefined;
}

async function waitFind(bus: MessageBus, app: string, role: string, name: string | RegExp, timeoutMs: number): Promise<Found> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const found = await find(bus, app, role, name);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${role} ${String(name)} of ${app} appeared within ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function doAction(bus: MessageBus, node: Found, action: string): Promise<void> {
  const count = Number(await accessibleProperty(bus, node, 'NActions', 'org.a11y.atspi.Action'));
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const [name] = await dbusCall(bus, node.busName, node.path, 'org.a11y.atspi.Action', 'GetName', { signature: 'i', body: [i], timeoutMs: 3000 });
    names.push(String(name));
  }
  const index = names.indexOf(action);
  if (index < 0) throw new Error(`${node.role} ${node.name} has no action ${action} (it has ${names.join(', ') || 'none'})`);
  await dbusCall(bus, node.busName, node.path, 'org.a11y.atspi.Action', 'DoAction', { signature: 'i', body: [index], timeoutMs: 3000 });
}

async function withA11y<T>(desktop: GnomeDesktop, use: (bus: MessageBus) => Promise<T>): Promise<T> {
  const bus = await connectBus(desktop.a11yBusAddress, 10_000);
  try {
    return await use(bus);
  } finally {
    bus.disconnect();
  }
}

/**
 * Waits for the shell's "Allow Applications to Take Screenshots?" question and clicks `answer` with
 * the person's hand, once the dialog has stopped moving (it zooms in), as a person would; clicks
 * again if the question is still there (a click during the animation can miss).
 */
export function answerScreenshotQuestion(desktop: GnomeDesktop, answer: 'Allow' | 'Deny', timeoutMs = 15_000): Promise<void> {
  return withA11y(desktop, async (bus) => {
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 0; ; attempt++) {
      const button = await waitFind(bus, 'gnome-shell', 'push button', answer, Math.max(deadline - Date.now(), 1000));
      const extents = async (): Promise<string> => {
        const [e] = await dbusCall(bus, button.busName, button.path, 'org.a11y.atspi.Component', 'GetExtents', { signature: 'u', body: [0], timeoutMs: 3000 });
        return (e as number[]).join();
      };
      let seen = await extents();
      for (let still = 0; still < 3 && Date.now() < deadline;) {
        await sleep(100);
        const now = await extents();
        still = now === seen ? still + 1 : 0;
        seen = now;
      }
      const [x, y, w, h] = seen.split(',').map(Number) as [number, number, number, number];
      await desktop.hand.click(Math.round(x + w / 2), Math.round(y + h / 2));
      await sleep(500);
      if ((await find(bus, 'gnome-shell', 'push button', answer)) === undefined) return;
      if (attempt >= 3 || Date.now() > deadline) throw new Error(`the screenshot question is still there after ${attempt + 1} clicks on ${answer} at ${seen}`);
    }
  });
}

/** Whether the shell's screenshot question is on the screen. */
export function screenshotQuestionShown(desktop: GnomeDesktop): Promise<boolean> {
  return withA11y(desktop, async (bus) => (await find(bus, 'gnome-shell', 'label', 'Allow Applications to Take Screenshots?')) !== undefined);
}

/** Whether the portal's remote-desktop dialog is open. */
export function remoteDesktopDialogShown(desktop: GnomeDesktop): Promise<boolean> {
  return withA11y(desktop, async (bus) => (await find(bus, 'xdg-desktop-portal-gnome', 'frame', 'Remote desktop')) !== undefined);
}

/**
 * Waits for the portal's "Remote desktop" dialog and answers it: `share` with "Allow remote
 * interaction" ticked or not, or `cancel`.
 */
export function answerRemoteDesktop(desktop: GnomeDesktop, answer: 'share' | 'share_view_only' | 'cancel', timeoutMs = 15_000): Promise<void> {
  return withA11y(desktop, async (bus) => {
    const app = 'xdg-desktop-portal-gnome';
    if (answer === 'cancel') {
      await doAction(bus, await waitFind(bus, app, 'push button', /Cancel$/, timeoutMs), 'click');
      return;
    }
    const box = await waitFind(bus, app, 'check box', 'Allow remote interaction', timeoutMs);
    const [states] = await dbusCall(bus, box.busName, box.path, ACCESSIBLE, 'GetState', { timeoutMs: 3000 });
    const checked = ((states as number[])[0] ?? 0) & (1 << STATE_CHECKED);
    if ((checked !== 0) !== (answer === 'share')) await doAction(bus, box, 'toggle');
    await doAction(bus, await waitFind(bus, app, 'push button', /Share$/, timeoutMs), 'click');
  });
}
