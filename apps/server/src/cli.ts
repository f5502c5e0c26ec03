#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { COMMANDS, flagsOf, runCommand, usage } from './cli-commands.ts';
import type { CliCommand, Flags } from './cli-commands.ts';

/** Each command of the table and its subcommands (none: the command stands alone), in the table's order. */
const SUBCOMMANDS = new Map<string, string[]>();
for (const name of Object.keys(COMMANDS)) {
  const [command = '', sub] = name.split(' ');
  const subs = SUBCOMMANDS.get(command) ?? [];
  if (sub !== undefined) subs.push(sub);
  SUBCOMMANDS.set(command, subs);
}

/**
 * The command of a command line, or an error for one that names no command, half of one or more
 * than one, before anything runs: `serve extra` started the server, `accounts` alone said
 * `unknown command "accounts "`.
 */
function commandOf(positionals: readonly string[]): CliCommand {
  const [command = '', sub, ...extra] = positionals;
  const subs = SUBCOMMANDS.get(command);
  if (!subs) throw new Error(`unknown command "${command}"; commands: ${[...SUBCOMMANDS.keys()].join(', ')}\n\n${usage()}`);
  if (subs.length === 0 && sub !== undefined) throw new Error(`unexpected argument "${sub}" after "${command}"\n\n${usage()}`);
  if (subs.length > 0 && sub === undefined) throw new Error(`"${command}" needs a subcommand: ${subs.join(', ')}\n\n${usage()}`);
  if (sub !== undefined && !subs.includes(sub)) {
    throw new Error(`unknown command "${command} ${sub}"; "${command}" takes: ${subs.join(', ')}\n\n${usage()}`);
  }
  if (extra.length > 0) throw new Error(`unexpected argument "${extra[0]}" after "${command} ${sub}"\n\n${usage()}`);
  return COMMANDS[sub === undefined ? command : `${command} ${sub}`]!;
}

/** What a command refuses a flag with, naming both. */
function notAnOption(flag: string, name: string, command: CliCommand): Error {
  const takes = flagsOf(command);
  const which = takes.length > 0 ? takes.map((f) => `--${f}`).join(', ') : 'none';
  return new Error(`${flag} is not an option of "${name}", which takes ${which}\n\n${usage()}`);
}

/** Every flag of the table, each a string (the table says which command takes it), and `--help`. */
const OPTIONS = {
  ...Object.fromEntries(Object.values(COMMANDS).flatMap((c) => flagsOf(c).map((f) => [f, { type: 'string' as const }]))),
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * The words and flags of a command line. A flag of no command is refused naming the command it
 * follows (Node's "Unknown option '--x'. To specify a positional argument starting with a '-', ..."
 * named none, and suggested what no command takes).
 */
function parse(argv: string[]): { positionals: string[]; help: boolean; flags: Flags } {
  try {
    const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
    const { help, ...flags } = values as Record<string, string | boolean | undefined>;
    return { positionals, help: help === true, flags: flags as Flags };
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw error;
    const { tokens } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS, strict: false, tokens: true });
    const at = tokens.findIndex((t) => t.kind === 'option' && !(t.name in OPTIONS));
    const unknown = tokens[at];
    if (!unknown || unknown.kind !== 'option') throw error;
    const name = tokens
      .slice(0, at)
      .flatMap((t) => (t.kind === 'positional' ? [t.value] : []))
      .join(' ');
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    throw command ? notAnOption(unknown.rawName, name, command) : new Error(`${unknown.rawName} is an option of no command\n\n${usage()}`);
  }
}

async function main(argv: string[]): Promise<void> {
  const { positionals, help, flags } = parse(argv);
  if (!positionals[0] || help) {
    console.log(usage());
    return;
  }
  const command = commandOf(positionals);
  // A flag of another command was silently ignored: `keys list --login ops --balance 5` listed the keys.
  const name = positionals.join(' ');
  const other = Object.keys(flags).find((flag) => flags[flag] !== undefined && !flagsOf(command).includes(flag));
  if (other !== undefined) throw notAnOption(`--${other}`, name, command);
  await runCommand(command, flags);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
