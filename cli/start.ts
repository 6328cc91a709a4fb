/**
 * The `atlas-audit-alerts` process: importing this module runs the command line of `process.argv`
 * and sets the exit code. `cli/bin.mjs` imports it from the build (`dist/cli/start.js`) or, in a
 * checkout whose build is missing or stale, from the sources.
 */
import { endQuietlyOnClosedPipe } from './closed-pipe.js';
import { main } from './main.js';
import { quietNodeSupportWarning } from './node-support-notice.js';

// A reader that closes the pipe early (`| head`) ends the command quietly, whatever it was printing.
endQuietlyOnClosedPipe({ streams: [process.stdout, process.stderr], exit: (code) => process.exit(code) });
// Before any AWS client exists: the SDK's eight-line Node version warning becomes one line, once.
quietNodeSupportWarning({ write: (text) => process.stderr.write(text) });
process.exitCode = await main(process.argv);
