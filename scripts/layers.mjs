// The import layers, as allowlists: for every folder, what its files may import (folders and files
// of this repository, and packages). Checked for every file, tests included, by the `overseer/layers`
// ESLint rule (scripts/layerRule.mjs). Modelled on VS Code's code-layering table.
//
// A file belongs to the most specific folder listed. Test files (`*.test.ts`, `*.test.tsx`) get the
// folder's `may` plus its `testsMay`. `reach` tells a file that may not import this layer how to
// reach it instead; the error message quotes it.

/** Node's built-ins, with or without the `node:` prefix. */
const NODE = 'node:*';

/** @typedef {{ folder: string, why: string, may: string[], packages?: string[], testsMay?: string[], testPackages?: string[], reach?: string }} Layer */

/** @type {Layer[]} */
export const LAYERS = [
  {
    folder: '.',
    why: 'The repository root holds tool configuration only.',
    may: ['scripts/layerRule.mjs', 'scripts/layers.mjs'],
    packages: ['@eslint/js', 'globals', 'typescript-eslint'],
  },
  {
    folder: 'protocol',
    why: 'protocol/ holds the contracts (zod schemas and the types inferred from them) and imports nothing of the project.',
    may: ['protocol'],
    packages: ['zod'],
    reach: 'Everything may import protocol/.',
  },
  { folder: 'protocol/test', why: 'Protocol tests test protocol/ alone.', may: ['protocol'], packages: [NODE] },
  {
    folder: 'rpc',
    why: 'rpc/ is the JSON-RPC peer both processes speak (correlation, timeouts, framing): it knows the protocol and nothing else.',
    may: ['protocol', 'rpc'],
    packages: [NODE, 'zod'],
    reach: 'Only the helper and its client in main/core speak rpc/.',
  },
  {
    folder: 'helper',
    why: 'The helper process: its entry point wires the RPC server to a backend.',
    may: ['protocol', 'rpc', 'helper'],
    packages: [NODE],
    reach: 'The supervisor reaches the helper only over RPC, through its client main/core/helperProcess.ts.',
  },
  {
    folder: 'helper/core',
    why: 'helper/core is backend-neutral: reading, finding, acting, budgets, shown state. Backends plug in through the Backend interface.',
    may: ['protocol', 'rpc', 'helper/core'],
    packages: [NODE, 'zod'],
    reach: 'The supervisor reaches the helper only over RPC, through its client main/core/helperProcess.ts.',
  },
  {
    folder: 'helper/screen/image',
    why: "The screen tier's image pipeline: area-average downscale, a node:zlib PNG writer and jpeg-js, pure functions over pixel buffers.",
    may: ['protocol', 'helper/screen/image'],
    packages: [NODE, 'jpeg-js'],
    reach: "The helper's screen tier and the benches use it; the supervisor gets images over RPC.",
  },
  { folder: 'helper/rpc', why: "The helper's own transports (its worker-thread stdout writer).", may: ['rpc', 'helper/rpc'], packages: [NODE] },
  {
    folder: 'helper/backends/atspi',
    why: 'The AT-SPI backend implements helper/core/backend.ts over D-Bus; it knows no other backend.',
    may: ['protocol', 'helper/core', 'helper/backends/atspi'],
    packages: [NODE, 'dbus-next'],
    testsMay: ['helper/contract', 'desktop', 'main/core/helperProcess.ts', 'main/core/paths.ts'],
    reach: 'Backends are chosen in helper/backendChoice.ts and used through helper/core/backend.ts; everyone else reaches them over RPC.',
  },
  {
    folder: 'helper/backends/windows',
    why: 'The Windows backends (UIA and plain Win32 over koffi) implement helper/core/backend.ts; they know no other backend.',
    may: ['protocol', 'helper/core', 'helper/backends/windows'],
    packages: [NODE, 'koffi'],
    testsMay: ['helper/contract', 'e2e/windows', 'desktop', 'main/core/helperProcess.ts', 'main/core/paths.ts'],
    reach: 'Backends are chosen in helper/backendChoice.ts and used through helper/core/backend.ts; everyone else reaches them over RPC.',
  },
  {
    folder: 'helper/screen',
    why: 'The screen tier: the backend-neutral ScreenBackend interface (capture, pointer, keyboard, monitors) in physical pixels, the service that binds captures and input to it, and its tests.',
    may: ['protocol', 'helper/screen'],
    packages: [NODE],
    testsMay: ['desktop', 'e2e/windows', 'main/core/helperProcess.ts', 'main/core/paths.ts'],
    reach: 'The helper wires screen backends; everyone else reaches them over RPC.',
  },
  {
    folder: 'helper/screen/x11',
    why: 'The X11 screen backend, in-process over the X protocol (`x11`): GetImage/MIT-SHM capture, XTEST input, RandR monitors, keysym mapping.',
    may: ['protocol', 'helper/screen'],
    packages: [NODE, 'x11'],
    testsMay: ['desktop', 'main/core/helperProcess.ts', 'main/core/paths.ts'],
    reach: 'Screen backends are used through helper/screen/screenBackend.ts.',
  },
  {
    folder: 'helper/screen/win32',
    why: 'The Windows screen backend over koffi (loaded on Windows only): BitBlt and PrintWindow capture, SendInput input, monitors and DPI awareness.',
    may: ['protocol', 'helper/screen'],
    packages: [NODE, 'koffi'],
    reach: 'Screen backends are used through helper/screen/screenBackend.ts.',
  },
  {
    folder: 'helper/screen/contract',
    why: 'The screen contract suite drives each screen backend (in-process, or over its RPC driver) against a real canvas application, one lane per backend.',
    may: ['protocol', 'helper/screen', 'desktop', 'e2e/windows', 'main/core/helperProcess.ts', 'main/core/paths.ts'],
    packages: [NODE],
  },
  {
    folder: 'helper/contract',
    why: 'The backend contract suite drives a real helper over RPC against real applications, one lane per backend.',
    may: ['protocol', 'helper/contract', 'desktop', 'e2e/windows', 'main/core/helperProcess.ts', 'main/core/paths.ts'],
    packages: [NODE],
  },
  {
    folder: 'main',
    why: 'The `overseer` command line: it parses arguments and runs a command.',
    may: ['main/cli.ts', 'main/cliArgs.ts', 'main/commands'],
    packages: [NODE],
    testsMay: ['protocol', 'main/core', 'main/testing', 'desktop'],
    testPackages: ['@modelcontextprotocol/sdk'],
  },
  {
    folder: 'main/commands',
    why: 'Each command starts the supervisor core (or talks to a running one) and prints for a person.',
    may: ['protocol', 'main/cliArgs.ts', 'main/core', 'main/commands', 'desktop'],
    packages: [NODE],
  },
  {
    folder: 'main/core',
    why: "The supervisor core is plain Node: sessions, policy, approvals, brakes, journal, MCP and the UI channel. It reaches the helper over RPC and the UI over the UI channel table. `unhomoglyph` is Unicode's confusables table (UTS #39) for the risk hints' skeleton.",
    may: ['protocol', 'rpc', 'main/core'],
    packages: [NODE, '@modelcontextprotocol/sdk', 'ws', 'zod', 'unhomoglyph'],
    testsMay: ['main/testing', 'main/cliArgs.ts', 'desktop'],
    reach:
      'The supervisor core is imported by its shells (main/commands, main/electron) and tests; the helper answers it over RPC (protocol/helperRpc.ts), the renderer over the UI channel (protocol/uiChannel.ts).',
  },
  {
    folder: 'main/core/native',
    why: "The supervisor's few native calls (the peer of a local socket), through koffi, loaded on first use.",
    may: ['protocol', 'main/core/native'],
    packages: [NODE, 'koffi'],
    testsMay: ['main/testing'],
  },
  {
    folder: 'main/testing',
    why: 'Test tools for the supervisor: fakes for unit tests, raw clients, the serve harness. They use the core as a client would, never the helper inside.',
    may: ['protocol', 'rpc', 'main/core', 'main/testing', 'desktop'],
    packages: [NODE, '@modelcontextprotocol/sdk', 'ws', 'dbus-next'],
    reach: 'Only tests and benches use main/testing.',
  },
  {
    folder: 'main/electron',
    why: 'The thin Electron shell adapts main/core: windows, typed IPC, tray, shortcuts.',
    may: ['protocol', 'main/cliArgs.ts', 'main/core', 'main/electron'],
    packages: [NODE, 'electron'],
    testsMay: ['main/testing', 'desktop'],
    testPackages: ['@modelcontextprotocol/sdk', 'app-builder-lib', 'builder-util'],
    reach: 'Nothing imports the Electron shell; it is an entry point.',
  },
  {
    folder: 'preload',
    why: 'The sandboxed preload builds the bridge by looping over the UI channel table.',
    may: ['protocol', 'preload'],
    packages: ['electron'],
    testPackages: [NODE],
  },
  {
    folder: 'renderer',
    why: 'The renderer entry and its build configuration.',
    may: ['protocol', 'renderer'],
    packages: ['react', 'react-dom', 'vite', '@vitejs/plugin-react', NODE],
  },
  {
    folder: 'renderer/api',
    why: 'The one module that talks to the supervisor: the UI channel over IPC or WebSocket, every frame validated.',
    may: ['protocol', 'renderer/api'],
    packages: ['zod'],
    testsMay: ['preload', 'main/core', 'main/electron'],
    testPackages: [NODE],
  },
  {
    folder: 'renderer/store',
    why: 'The zustand store: typed slices, state and the actions that change it.',
    may: ['protocol', 'renderer/api', 'renderer/store'],
    packages: ['zustand'],
    testPackages: [NODE],
  },
  {
    folder: 'renderer/features',
    why: 'React views, one folder per feature: they read the store and call its actions.',
    may: ['protocol', 'renderer/api', 'renderer/store', 'renderer/features'],
    packages: ['react', 'react-dom', '@tanstack/react-virtual'],
  },
  {
    folder: 'desktop',
    why: 'The private virtual desktop (Xvfb, D-Bus, AT-SPI, a window manager, sample apps, by pid) and the system packages it needs: `serve --demo`, `install-deps`, the tests and the benches run it. It knows nothing of the product.',
    may: ['desktop'],
    packages: [NODE, 'dbus-next'],
  },
  {
    folder: 'e2e/ui',
    why: 'UI specs: the real UI in a real browser against a real `overseer serve`.',
    may: ['protocol', 'main/core', 'main/testing', 'desktop', 'e2e/ui', 'scripts/electronBinary.mjs'],
    packages: [NODE, 'playwright-core', '@modelcontextprotocol/sdk', 'axe-core'],
  },
  {
    folder: 'e2e/integration',
    why: 'Tests that join both sides in one process, to prove they agree: the helper service with the supervisor tools, the supervisor with the renderer store.',
    may: ['protocol', 'helper/core', 'main/core', 'main/testing', 'renderer/api', 'renderer/store', 'e2e/integration'],
    packages: [NODE],
  },
  {
    folder: 'e2e/windows',
    why: 'The Wine lane: builds the Win32 fixture and runs the helper under Wine.',
    may: ['main/core/helperProcess.ts', 'main/core/paths.ts', 'e2e/windows'],
    packages: [NODE],
  },
  {
    folder: 'bench',
    why: "Benchmarks measure the product through its real entry points, against peers in the same run. The screen bench drives the X11 screen backend in-process (x11Backend.ts): no RPC method of the screen tier exists yet. getItemsDecode.ts compares the two decode paths of one AT-SPI call in-process (A11yBus, the GetItems reader, AppCache): they are below any RPC method. marshalCalls.ts compares the hand marshaller of method calls (fastCalls.ts) with dbus-next's own, in-process: it is below any RPC method too.",
    may: [
      'protocol',
      'bench',
      'main/core',
      'main/testing',
      'desktop',
      'e2e/ui',
      'e2e/windows',
      'helper/backends/atspi/appCache.ts',
      'helper/backends/atspi/cacheItems.ts',
      'helper/backends/atspi/dbus.ts',
      'helper/backends/atspi/fastCalls.ts',
      'helper/core/deadline.ts',
      'helper/backends/windows/win32/win32Api.ts',
      'helper/screen/image',
      'helper/screen/x11/x11Backend.ts',
    ],
    packages: [NODE, '@modelcontextprotocol/sdk', 'playwright-core', 'dbus-next'],
  },
  { folder: 'scripts', why: 'Build and test scripts.', may: ['scripts', 'protocol', 'main/core', 'desktop'], packages: [NODE, 'esbuild', 'tsx'] },
  { folder: 'bin', why: 'The `overseer` executable loads the CLI.', may: ['main/cli.ts'], packages: ['tsx'] },
];
