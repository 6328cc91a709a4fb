#!/usr/bin/env node
// Entry point of the `atlas-audit-alerts` command: loads the TypeScript sources through tsx, so the
// command always runs the code in this checkout with no build step.
import { register } from 'tsx/esm/api';

register();
// A reader that closes the pipe early (`| head`) ends the command quietly, whatever it was printing.
const { endQuietlyOnClosedPipe } = await import('./closed-pipe.ts');
endQuietlyOnClosedPipe({ streams: [process.stdout, process.stderr], exit: (code) => process.exit(code) });
// Before any AWS client exists: the SDK's eight-line Node version warning becomes one line, once.
const { quietNodeSupportWarning } = await import('./node-support-notice.ts');
quietNodeSupportWarning({ write: (text) => process.stderr.write(text) });
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv);
