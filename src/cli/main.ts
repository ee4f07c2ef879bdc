/**
 * `npx services-session-auth …`: the package's command line (the `bin` of package.json,
 * built to `dist/cli.js`). Exit codes: 0 done, 1 failed (the message only: never a stack, a
 * password or a secret), 2 unknown command or bad arguments (the usage on stderr).
 *
 * @module
 */
import { run } from "./run.js";

process.exitCode = await run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
