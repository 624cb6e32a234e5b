#!/usr/bin/env node
// The `keyflow` operator CLI; `npm run build` compiles it into dist/.
import '../dist/lib/cli/keyflow.js';
