import { A11yBus } from '../../helper/backends/atspi/dbus.js';

/**
 * Changes the fixture from outside the supervisor (as a person or another program would), through
 * its own D-Bus connection: used to prove what the supervisor re-checks.
 */
export class FixtureDriver {
  private constructor(private readonly bus: A11yBus) {}

  static async connect(a11yBusAddress: string): Promise<FixtureDriver> {
    const before = process.env['AT_SPI_BUS_ADDRESS'];
    process.env['AT_SPI_BUS_ADDRESS'] = a11yBusAddress;
    try {
      return new FixtureDriver(await A11yBus.connect());
    } finally {
      if (before === undefined) delete process.env['AT_SPI_BUS_ADDRESS'];
      else process.env['AT_SPI_BUS_ADDRESS'] = before;
    }
  }

  /** Clicks the element with this accessible id in the fixture (searches the app's cache). */
  async click(automationId: string): Promise<void> {
    const path = await this.find(automationId);
    await this.bus.call(path.bus, path.path, 'org.a11y.atspi.Action', 'DoAction', 3000, 'i', [0]);
  }

  /** Sets the text of an entry with this accessible id. */
  async setText(automationId: string, text: string): Promise<void> {
    const path = await this.find(automationId);
    await this.bus.call(path.bus, path.path, 'org.a11y.atspi.EditableText', 'SetTextContents', 3000, 's', [text]);
  }

  private async find(automationId: string): Promise<{ bus: string; path: string }> {
    await this.bus.call('org.a11y.atspi.Registry', '/org/a11y/atspi/registry', 'org.a11y.atspi.Registry', 'RegisterEvent', 3000, 'sass', ['object:children-changed', [], '']);
    const [apps] = await this.bus.call('org.a11y.atspi.Registry', '/org/a11y/atspi/accessible/root', 'org.a11y.atspi.Accessible', 'GetChildren', 3000);
    for (const [app] of apps as [string, string][]) {
      const [items] = await this.bus.call(app, '/org/a11y/atspi/cache', 'org.a11y.atspi.Cache', 'GetItems', 3000).catch(() => [[]]);
      for (const item of items as [[string, string]][]) {
        const [bus, path] = item[0];
        const id = await this.bus.getProperty(bus, path, 'org.a11y.atspi.Accessible', 'AccessibleId', 3000).catch(() => '');
        if (id === automationId) return { bus, path };
      }
    }
    throw new Error(`no element with accessible id ${automationId}`);
  }

  close(): void {
    this.bus.disconnect();
  }
}
