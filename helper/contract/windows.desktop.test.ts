import { describe, it } from 'node:test';
import { wineUnavailable } from '../../e2e/windows/lanes.js';
import { backendContract } from './backendContract.js';
import { windowsSetup } from './windowsLane.js';

// The backend contract for the Windows backends against the Win32 fixture: under Wine here (the
// helper in the Windows build of Node; auto falls back to the Win32 tier), on Windows in CI (UIA).
const native = process.platform === 'win32';
const title = native ? 'backend contract: Windows (Win32 fixture)' : 'backend contract: the Win32 tier under Wine (Win32 fixture)';
const why = native ? undefined : wineUnavailable();
if (why === undefined) backendContract(title, windowsSetup);
else
  describe(title, () => {
    it('runs the contract in the Wine lane', { skip: why }, () => {});
  });
