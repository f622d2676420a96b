import type { MessageBus } from 'dbus-next';
import { asRefs, connectBus, dbusCall, variantValue } from '../../desktop/dbus.js';

const CALL_MS = 3000;

/**
 * Changes the fixture from outside the supervisor (as a person or another program would), through
 * its own D-Bus connection to the accessibility bus: used to prove what the supervisor re-checks.
 * It shares no code with the helper's backend, so a bug there cannot hide in both.
 */
export class FixtureDriver {
  private constructor(private readonly bus: MessageBus) {}

  static async connect(a11yBusAddress: string): Promise<FixtureDriver> {
    return new FixtureDriver(await connectBus(a11yBusAddress, 5000));
  }

  /** Clicks the element with this accessible id in the fixture (searches the app's cache). */
  async click(automationId: string): Promise<void> {
    const { busName, path } = await this.find(automationId);
    await dbusCall(this.bus, busName, path, 'org.a11y.atspi.Action', 'DoAction', { signature: 'i', body: [0], timeoutMs: CALL_MS });
  }

  /** Moves the keyboard focus to the element with this accessible id (as a person clicking into it would). */
  async focus(automationId: string): Promise<void> {
    const { busName, path } = await this.find(automationId);
    await dbusCall(this.bus, busName, path, 'org.a11y.atspi.Component', 'GrabFocus', { timeoutMs: CALL_MS });
  }

  /** Sets the text of an entry with this accessible id. */
  async setText(automationId: string, text: string): Promise<void> {
    const { busName, path } = await this.find(automationId);
    await dbusCall(this.bus, busName, path, 'org.a11y.atspi.EditableText', 'SetTextContents', { signature: 's', body: [text], timeoutMs: CALL_MS });
  }

  /** The text of the element with this accessible id (an entry's contents), read through its own connection. */
  async text(automationId: string): Promise<string> {
    const { busName, path } = await this.find(automationId);
    const [text] = await dbusCall(this.bus, busName, path, 'org.a11y.atspi.Text', 'GetText', { signature: 'ii', body: [0, -1], timeoutMs: CALL_MS });
    return String(text);
  }

  private async find(automationId: string): Promise<{ busName: string; path: string }> {
    const [apps] = await dbusCall(this.bus, 'org.a11y.atspi.Registry', '/org/a11y/atspi/accessible/root', 'org.a11y.atspi.Accessible', 'GetChildren', {
      timeoutMs: CALL_MS,
    });
    for (const app of asRefs(apps)) {
      const [items] = await dbusCall(this.bus, app.busName, '/org/a11y/atspi/cache', 'org.a11y.atspi.Cache', 'GetItems', { timeoutMs: CALL_MS }).catch(() => [
        [],
      ]);
      for (const item of Array.isArray(items) ? (items as unknown[][]) : []) {
        const [ref] = asRefs([item[0]]);
        if (ref === undefined) continue;
        const [id] = await dbusCall(this.bus, ref.busName, ref.path, 'org.freedesktop.DBus.Properties', 'Get', {
          signature: 'ss',
          body: ['org.a11y.atspi.Accessible', 'AccessibleId'],
          timeoutMs: CALL_MS,
        }).catch(() => ['']);
        if (variantValue(id) === automationId) return ref;
      }
    }
    throw new Error(`no element with accessible id ${automationId}`);
  }

  close(): void {
    this.bus.disconnect();
  }
}
