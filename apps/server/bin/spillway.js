#!/usr/bin/env node
// The `spillway` command runs the built CLI (`pnpm build`; the install builds it). A launcher of
// its own, committed, so that the install links the command before the build exists.
await import('../dist/cli.js');
