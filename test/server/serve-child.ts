/**
 * Child-process entry for tests: runs `serveCommand` with this script's arguments.
 * (vite-node runs TypeScript directly; the compiled CLI needs a build first.)
 */
import { serveCommand } from '../../src/cli/serve.js';

serveCommand(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`serve-child: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
