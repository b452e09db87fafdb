import { ApiError, UserInputError } from '../errors.js';
import { failureText, type Refused } from '../shared/failures.js';

/** How a command reports: one JSON document with --json, readable lines otherwise. */
export interface Output {
  json: boolean;
}

/** Prints the command's result: exactly one JSON document on stdout with --json, else the text. */
export function printResult(output: Output, value: unknown, text: string): void {
  process.stdout.write(output.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

/** Prints a list: the rows as one JSON document with --json, else as a table of `columns`. */
export function printRows<R extends object>(output: Output, rows: readonly R[], columns: readonly (keyof R & string)[]): void {
  printResult(output, rows, formatTable(rows, columns));
}

/** Prints a table of rows as aligned columns, the columns named by the rows' own fields. */
export function formatTable<R extends object>(rows: readonly R[], columns: readonly (keyof R & string)[]): string {
  if (rows.length === 0) return '(none)';
  const cells = [[...columns], ...rows.map((row) => columns.map((column) => String(row[column] ?? '')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => (line[i] as string).length)));
  return cells
    .map((line) =>
      line
        .map((cell, i) => cell.padEnd(widths[i] as number))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * The CLI's one rendering of a refusal (a command's, an option's, the import's): `<path>: <message>`
 * per failure (the message alone for the whole input or a sentence).
 */
export const refusalText = (refused: Refused): string => refused.failures.map(failureText).join('; ');

/** Runs a service action for a command: an API error becomes a refusal of the operator's input (its message); a refusal goes through. */
export async function asOperatorErrors<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ApiError) throw new UserInputError(error.message, error.code);
    throw error;
  }
}
