#!/usr/bin/env node
import { runLockctl } from './run';

void runLockctl(process.argv.slice(2)).then((code) => process.exit(code));
