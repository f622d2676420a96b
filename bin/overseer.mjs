#!/usr/bin/env node
// The `overseer` command: runs the TypeScript CLI through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../main/cli.ts');
