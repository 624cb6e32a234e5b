// The operator CLI: `npm run -s cli -- <command>` or the `keyflow` bin. This entry
// refuses an old Node.js, keeps the compile cache, runs the command line
// (run.ts) and exits with its code once the output is flushed.
import '../lib/runtime/supported-node.js'; // first: refuses an old Node.js before anything else loads
// The default export, not a named one: on a Node.js too old to have it, a missing named export fails at link time,
// before supported-node.js can refuse that Node.js in one line.
import nodeModule from 'node:module';
import { runKeyflow } from './run.js';

// Every command runs in a new process that compiles the same modules (the
// MongoDB driver, Temporal's client…) again: Node's on-disk compile cache (in
// the system's temporary folder, checked against each source) saves about a
// tenth of a command's time from its second run on.
nodeModule.enableCompileCache?.();

/**
 * Ends the process once stdout and stderr are flushed: process.exit() right after a
 * large write to a pipe cuts the output at the pipe's 64 KiB buffer (`keyflow clients
 * list | jq` on a busy instance), so exit from the callback of a last, empty write.
 */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

void runKeyflow(process.argv.slice(2)).then(exitAfterFlush);
