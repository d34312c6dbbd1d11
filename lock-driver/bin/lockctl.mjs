#!/usr/bin/env node
// Installed as the package's `lockctl` bin: runs the TypeScript CLI through tsx.
import { register } from 'tsx/esm/api';
register();
await import('../src/cli/lockctl.ts');
