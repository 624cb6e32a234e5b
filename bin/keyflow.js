#!/usr/bin/env node
// The `keyflow` operator CLI; `npm run build` compiles it into dist/.
import '../dist/cli/keyflow.js';
