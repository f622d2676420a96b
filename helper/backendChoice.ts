import { fail } from '../protocol/index.js';
import { AtspiBackend } from './backends/atspi/atspiBackend.js';
import type { Backend } from './core/backend.js';

/** Which backend the helper runs: OVERSEER_BACKEND, or the platform's default. */
export function wantedBackend(env: Record<string, string | undefined>, platform: string): string {
  return env['OVERSEER_BACKEND'] ?? (platform === 'win32' ? 'auto' : 'atspi');
}

/** A backend that could not be built: every call answers why (the helper keeps serving). */
function unavailable(name: 'uia' | 'win32', why: string): Backend {
  const refuse = (): Promise<never> => Promise.reject(fail('accessibility_unavailable', why, { reason: `${name}_unavailable` }));
  return {
    name,
    capabilities: [],
    start: refuse,
    stop: () => Promise.resolve(),
    setExclusions: () => {},
    listWindows: refuse,
    resolveWindow: refuse,
    open: refuse,
    checkProcess: refuse,
    dispatch: refuse,
  };
}

/**
 * Builds the backend: `atspi` (Linux), `osworld` (an OSWorld VM's server, OVERSEER_OSWORLD_URL), `win32` (the plain Win32 tier), `uia`, or `auto` (Windows'
 * default): UI Automation when its client object can be created, else the Win32 tier naming the
 * `fallback_reason`. The Windows modules load only on this path, so Linux never touches koffi.
 */
export async function createBackend(wanted: string, log: (line: string) => void): Promise<Backend> {
  switch (wanted) {
    case 'atspi':
      return new AtspiBackend(log);
    case 'osworld': {
      // An OSWorld VM's tree over HTTP (docs/connections.md#osworld); its screen is wired in screenWiring.ts.
      const [{ OsworldBackend }, { OsworldHttp, osworldSettings }] = await Promise.all([
        import('./backends/osworld/osworldBackend.js'),
        import('./osworld/osworldHttp.js'),
      ]);
      return new OsworldBackend(new OsworldHttp(osworldSettings(process.env)), log);
    }
    case 'win32': {
      const { Win32Backend } = await import('./backends/windows/win32/win32Backend.js');
      return new Win32Backend(log);
    }
    case 'uia':
    case 'auto': {
      const { createAutomation } = await import('./backends/windows/uia/uiaFactory.js');
      const created = createAutomation();
      if ('reason' in created) {
        if (wanted === 'uia') return unavailable('uia', created.reason);
        log(`[helper] ${created.reason}; falling back to the Win32 tier`);
        const { Win32Backend } = await import('./backends/windows/win32/win32Backend.js');
        return new Win32Backend(log, created.reason);
      }
      const [{ UiaBackend }, { UiaClient }] = await Promise.all([
        import('./backends/windows/uia/uiaBackend.js'),
        import('./backends/windows/uia/uiaClient.js'),
      ]);
      return new UiaBackend(log, UiaClient.wrap(created.automation), wanted === 'auto');
    }
    default:
      throw new Error(`OVERSEER_BACKEND="${wanted}" is not one of atspi, osworld, uia, win32, auto`);
  }
}
