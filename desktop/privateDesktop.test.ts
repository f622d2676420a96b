import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startPrivateDesktop } from './privateDesktop.js';

describe('startPrivateDesktop', () => {
  it('names the missing packages and install-deps when a program of the desktop is not there', async () => {
    // A machine without Xvfb and D-Bus, whose dpkg knows no package.
    const bin = mkdtempSync(join(tmpdir(), 'overseer-nopkg-'));
    const path = process.env['PATH'];
    writeFileSync(join(bin, 'dpkg-query'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    process.env['PATH'] = bin;
    try {
      await assert.rejects(
        startPrivateDesktop(),
        /cannot start (Xvfb|dbus-daemon): spawn \S+ ENOENT\nmissing system packages for the demo desktop: xvfb dbus .* — install them with: npx overseer install-deps$/,
      );
    } finally {
      process.env['PATH'] = path;
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
