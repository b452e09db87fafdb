/**
 * Why a command refused its input, as data. A command (createEvent, upsertProfiles, ...) is called
 * by several writers (the API, the import, the chat sync, the CLI); each renders the same failures
 * in its own format (the API's `validation_failed` naming `body.<field>`, the import's
 * `<section>[<index>].<field>: <message>`, the CLI's line). No writer reads meaning out of
 * `message`: it is for people; `path` and `rule` are for code.
 */
export interface Failure {
  /** Where, in the command's own input: `['hosts', 1]`, `['start_date']`; empty for the whole input. */
  readonly path: readonly (string | number)[];
  /** A stable identifier of the rule broken, snake_case: `required`, `format`, `too_long`, `unknown_reference`, ... */
  readonly rule: string;
  /** The sentence shown to people (without the path). */
  readonly message: string;
  /**
   * True when `message` is a whole sentence that names its place itself (an operator command's
   * `The key label must be at most 200 characters.`): the CLI prints it alone, without the path.
   */
  readonly sentence?: true;
}

/** Thrown by a command to refuse its input: the write path rolls the transaction back; the caller renders `failures`. */
export class Refused extends Error {
  readonly failures: readonly Failure[];

  constructor(failures: readonly Failure[]) {
    super(failures.map(failureText).join('; '));
    this.name = 'Refused';
    this.failures = failures;
  }
}

/** One failure, thrown. */
export const refuse = (path: Failure['path'], rule: string, message: string): Refused => new Refused([{ path, rule, message }]);

/** One failure whose message is a whole sentence naming its place (`sentence`), thrown. */
export const refuseSentence = (path: Failure['path'], rule: string, message: string): Refused =>
  new Refused([{ path, rule, message, sentence: true }]);

/** A failure as one line: `<path>: <message>`, or the message alone for the whole input or a `sentence`. */
export const failureText = (failure: Failure): string =>
  failure.path.length === 0 || failure.sentence ? failure.message : `${formatPath(failure.path)}: ${failure.message}`;

/** Throws the failure, if there is one (a check that returns its first failure or undefined). */
export function refuseIf(failure: Failure | undefined): void {
  if (failure) throw new Refused([failure]);
}

/** `['hosts', 1, 'id']` as `hosts[1].id` (the form both the API and the import print). */
export function formatPath(path: Failure['path']): string {
  let text = '';
  for (const segment of path) text += typeof segment === 'number' ? `[${segment}]` : text === '' ? segment : `.${segment}`;
  return text;
}
