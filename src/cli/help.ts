/**
 * Shared help handling.
 * @module
 */

/** True when `-h` or `--help` appears among the arguments before a `--` terminator. */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}
