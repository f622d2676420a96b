import { fileURLToPath } from 'node:url';
import { startPrivateDesktop } from '../../desktop/privateDesktop.js';

/** `serve --demo`: a private virtual desktop with the fixture and sample applications. */
export async function startDemoDesktop(log: (line: string) => void): Promise<{ env: Record<string, string>; stop: () => Promise<void> }> {
  const desktop = await startPrivateDesktop();
  const fixture = fileURLToPath(new URL('../../desktop/apps/fixtureApp.py', import.meta.url));
  await desktop.launch('/usr/bin/python3', [fixture, '--rows', '200'], { waitForWindow: 'Overseer Fixture' });
  for (const [cmd, title] of [['mousepad', /Mousepad/], ['gnome-calculator', 'Calculator']] as const) {
    await desktop.launch(cmd, [], { waitForWindow: title }).catch((error: unknown) => log(`[demo] ${cmd} did not start: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`));
  }
  log(`[demo] private desktop ${desktop.display} with the fixture and sample applications`);
  return { env: desktop.env, stop: () => desktop.stop() };
}
